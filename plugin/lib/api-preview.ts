import {z} from 'zod'
import {mapOneDocument} from '../../catalog/v1/document-mapping.ts'
import {createLinks, type CollectionName, type LinkSettings} from '../../catalog/v1/links.ts'
import {EPISODE_PREVIEW_QUERY, MEETUP_PREVIEW_QUERY, VOICE_PREVIEW_QUERY} from '../../catalog/queries.ts'
import {describeObjection, hebrewErrors} from './objections.ts'
import {scheduledNotice} from '../../catalog/editor-rules/release-time.ts'

/** The server's settings that appear in its documents (absolute URLs). */
export interface PreviewSettings extends LinkSettings {
  feedUrl: string
}

export type ApiPreview =
  | {status: 'served'; path: string; json: string; warnings: string[]}
  | {status: 'rejected'; problems: string[]}
  | {status: 'missing'}
  /** A valid episode whose release time is ahead: the server serves nothing for it until then. */
  | {status: 'scheduled'; notice: string}

/** The server's own projection for each collection, over one document in any perspective. */
export const PREVIEW_QUERIES: Record<CollectionName, string> = {
  episodes: EPISODE_PREVIEW_QUERY,
  meetups: MEETUP_PREVIEW_QUERY,
  voices: VOICE_PREVIEW_QUERY,
}

const linkedVoicesSchema = z.looseObject({
  guests: z.array(z.looseObject({slug: z.string()})).optional(),
  speakers: z.array(z.looseObject({slug: z.string()})).optional(),
})

/**
 * What the v1 API would serve for this query row, through the server's mapper and contract: the
 * item document (`{"data": ...}`) and its path, or the contract's objections: in Hebrew, under
 * the Studio's field titles, when `fieldTitle` is given, and as the server logs them otherwise.
 * Linked voices are taken as served; the server also leaves out voices it rejects, which this
 * view cannot know.
 */
export function buildApiPreview(
  collection: CollectionName,
  row: unknown,
  settings: PreviewSettings,
  fieldTitle?: (studioField: string) => string | undefined,
): ApiPreview {
  if (row === null || row === undefined) return {status: 'missing'}
  const linked = linkedVoicesSchema.safeParse(row)
  const servedVoices = new Set(
    linked.success ? [...(linked.data.guests ?? []), ...(linked.data.speakers ?? [])].map((voice) => voice.slug) : [],
  )
  const mapped = mapOneDocument(
    collection,
    row,
    {links: createLinks(settings), feedUrl: settings.feedUrl, servedVoices},
    fieldTitle && hebrewErrors,
  )
  if (!mapped.ok)
    return {
      status: 'rejected',
      problems: fieldTitle
        ? mapped.issues.map((issue) => describeObjection(collection, issue, fieldTitle))
        : mapped.messages,
    }
  const item = mapped.entry.value
  const notice = 'published_at' in item ? scheduledNotice(item.published_at) : undefined
  if (notice !== undefined) return {status: 'scheduled', notice}
  return {
    status: 'served',
    path: `/api/v1/${collection}/${item.slug}.json`,
    json: JSON.stringify({data: item}, null, 2),
    warnings: mapped.warnings,
  }
}
