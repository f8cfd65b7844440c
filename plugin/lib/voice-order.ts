import {z} from 'zod'
import {voiceOrder} from '../../catalog/v1/order.ts'

/** Every voice, drafts included, with what the API orders voices by. */
export const VOICE_LIST_QUERY = `*[_type == "voice"]{_id, name, "slug": slug.current}`

const rowsSchema = z.array(z.object({_id: z.string(), name: z.string().nullish(), slug: z.string().nullish()}))

/**
 * The voices' published ids in the order the API lists them (its Hebrew collator, not GROQ's code
 * points), once each: a voice with a draft is placed by the draft's name, as the editor sees it.
 */
export function voicesInApiOrder(rows: unknown): string[] {
  const byId = new Map<string, {name: string; slug: string}>()
  for (const row of rowsSchema.parse(rows)) {
    const isDraft = row._id.startsWith('drafts.')
    const id = isDraft ? row._id.slice('drafts.'.length) : row._id
    if (row._id.startsWith('versions.') || (!isDraft && byId.has(id))) continue
    byId.set(id, {name: row.name ?? '', slug: row.slug ?? ''})
  }
  return [...byId].sort(([, a], [, b]) => voiceOrder.compare([a.name, a.slug], [b.name, b.slug])).map(([id]) => id)
}
