import type {z} from 'zod'
import type {PersonRef} from './contract.ts'
import type {Links} from './links.ts'
import type {personRowSchema} from './rows.ts'

/** What a mapper needs besides the row. */
export interface MappingContext {
  links: Links
  feedUrl: string
  /** Slugs of the voices this catalog serves: a PersonRef must resolve through getVoice. */
  servedVoices: ReadonlySet<string>
}

/** A mapped item with what the catalog needs to date it and report on it. */
export interface Mapped<Item> {
  value: Item
  /** Latest edit among the documents whose fields appear in this item. */
  updatedAt: string
  warnings: string[]
  /** An episode's transcript as the catalog holds it (transcript.ts), served apart from the item. */
  transcript?: Uint8Array
}

/** Builds PersonRefs, leaving out references to voices the catalog does not serve (and saying so). */
export function toPersonRefs(
  field: string,
  rows: z.infer<typeof personRowSchema>[],
  context: MappingContext,
  ownUpdatedAt: string,
) {
  const served = rows.filter((row) => context.servedVoices.has(row.slug))
  const refs = served.map((row): PersonRef => ({
    slug: row.slug,
    url: context.links.page('voices', row.slug),
    api_url: context.links.api('voices', row.slug),
  }))
  const warnings = rows
    .filter((row) => !context.servedVoices.has(row.slug))
    .map((row) => `${field}: left out voice "${row.slug}", which the catalog does not serve`)
  return {refs, warnings, updatedAt: latestTimestamp([ownUpdatedAt, ...served.map((row) => row._updatedAt)])}
}

function latestTimestamp(timestamps: string[]): string {
  return timestamps.reduce((latest, next) => (Date.parse(next) > Date.parse(latest) ? next : latest))
}
