import {z} from 'zod'
import {episodeSchema, meetupSchema, voiceSchema, type Episode, type Meetup, type Voice} from './contract.ts'
import {episodeRowSchema, mapEpisode} from './episode.ts'
import type {CollectionName, Links} from './links.ts'
import {meetupRowSchema, mapMeetup} from './meetup.ts'
import {episodeOrder, meetupOrder, sortBy, voiceOrder, type ListOrder} from './order.ts'
import type {Mapped, MappingContext} from './person-ref.ts'
import {mapVoice, voiceRowSchema} from './voice.ts'

export interface CatalogEntry<Item> {
  value: Item
  /** Latest `_updatedAt` among the documents this item shows. */
  updatedAt: string
  documentId: string
}

/** A document the API does not serve as it is, and why. */
export interface DocumentProblem {
  documentId: string
  collection: CollectionName
  /** `rejected`: left out of the API; `warning`: served, with something left out. */
  severity: 'rejected' | 'warning'
  messages: string[]
}

export interface Catalog {
  episodes: CatalogEntry<Episode>[]
  meetups: CatalogEntry<Meetup>[]
  voices: CatalogEntry<Voice>[]
  problems: DocumentProblem[]
}

/** The top-level shape of CATALOG_QUERY; anything else means the source is broken, not a document. */
const catalogResultSchema = z.object({
  episodes: z.array(z.unknown()),
  meetups: z.array(z.unknown()),
  voices: z.array(z.unknown()),
})

const documentIdSchema = z.object({_id: z.string()})

interface CollectionSpec<Row, Item> {
  name: CollectionName
  rowSchema: z.ZodType<Row>
  itemSchema: z.ZodType<Item>
  map: (row: Row, context: MappingContext) => Mapped<Item>
  order: ListOrder<Item>
}

/**
 * Turns the result of CATALOG_QUERY into the served catalog. A document that breaks the contract
 * is left out and reported; it never takes the rest of the catalog down with it. Throws only when
 * the result as a whole has the wrong shape.
 */
export function mapCatalog(result: unknown, settings: {links: Links; feedUrl: string}): Catalog {
  const rows = catalogResultSchema.parse(result)
  const problems: DocumentProblem[] = []
  const mapAll = <Row, Item extends {slug: string}>(spec: CollectionSpec<Row, Item>, input: unknown[], context: MappingContext) =>
    mapCollection(spec, input, context, problems)

  // Voices first: episodes and meetups may only link to voices that are served.
  const voices = mapAll({name: 'voices', rowSchema: voiceRowSchema, itemSchema: voiceSchema, map: mapVoice, order: voiceOrder}, rows.voices, {
    ...settings,
    servedVoices: new Set(),
  })
  const context = {...settings, servedVoices: new Set(voices.map((voice) => voice.value.slug))}
  return {
    episodes: mapAll({name: 'episodes', rowSchema: episodeRowSchema, itemSchema: episodeSchema, map: mapEpisode, order: episodeOrder}, rows.episodes, context),
    meetups: mapAll({name: 'meetups', rowSchema: meetupRowSchema, itemSchema: meetupSchema, map: mapMeetup, order: meetupOrder}, rows.meetups, context),
    voices,
    problems,
  }
}

function mapCollection<Row, Item extends {slug: string}>(
  spec: CollectionSpec<Row, Item>,
  input: unknown[],
  context: MappingContext,
  problems: DocumentProblem[],
): CatalogEntry<Item>[] {
  const report = (documentId: string, severity: DocumentProblem['severity'], messages: string[]) =>
    problems.push({documentId, collection: spec.name, severity, messages})
  const entries: CatalogEntry<Item>[] = []
  for (const raw of input) {
    const identified = documentIdSchema.safeParse(raw)
    const documentId = identified.success ? identified.data._id : '(no _id)'
    const row = spec.rowSchema.safeParse(raw)
    if (!row.success) {
      report(documentId, 'rejected', describeIssues(row.error))
      continue
    }
    const mapped = spec.map(row.data, context)
    const item = spec.itemSchema.safeParse(mapped.value)
    if (!item.success) {
      report(documentId, 'rejected', describeIssues(item.error))
      continue
    }
    if (mapped.warnings.length > 0) report(documentId, 'warning', mapped.warnings)
    entries.push({value: item.data, updatedAt: mapped.updatedAt, documentId})
  }
  const sorted = sortEntries(entries, spec.order)
  // Two documents with one slug would make the single endpoint ambiguous: the first in list order wins.
  const seen = new Set<string>()
  return sorted.filter((entry) => {
    if (!seen.has(entry.value.slug)) return seen.add(entry.value.slug)
    report(entry.documentId, 'rejected', [`slug: "${entry.value.slug}" is already used by another document in ${spec.name}`])
    return false
  })
}

function sortEntries<Item>(entries: CatalogEntry<Item>[], order: ListOrder<Item>): CatalogEntry<Item>[] {
  return sortBy(entries, {key: (entry) => order.key(entry.value), compare: order.compare})
}

function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
}
