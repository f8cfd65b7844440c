import {z} from 'zod'
import {episodeSchema, meetupSchema, voiceSchema, type Episode, type Meetup, type Voice} from './contract.ts'
import {episodeRowSchema, mapEpisode} from './episode.ts'
import type {CollectionName} from './links.ts'
import {meetupRowSchema, mapMeetup} from './meetup.ts'
import {episodeOrder, meetupOrder, voiceOrder, type ListOrder} from './order.ts'
import type {Mapped, MappingContext} from './person-ref.ts'
import {mapVoice, voiceRowSchema} from './voice.ts'
import {cleanStrings} from './xml-text.ts'

// One document mapped to what the API serves, checked against the contract: what a build does for
// each document (catalog.ts) and what the Studio's previews show for the one being edited.

export interface CatalogEntry<Item> {
  readonly value: Item
  /** Latest `_updatedAt` among the documents this item shows. */
  readonly updatedAt: string
  readonly documentId: string
  /** An episode's transcript (the JSON transcript's bytes), served apart from its item and saved beside it. */
  readonly transcript?: Uint8Array
}

const documentIdSchema = z.object({_id: z.string()})

export interface CollectionSpec<Row, Item> {
  rowSchema: z.ZodType<Row>
  itemSchema: z.ZodType<Item>
  map: (row: Row, context: MappingContext) => Mapped<Item>
  order: ListOrder<Item>
}

const spec = <Row, Item>(definition: CollectionSpec<Row, Item>) => definition
export const specs = {
  episodes: spec({rowSchema: episodeRowSchema, itemSchema: episodeSchema, map: mapEpisode, order: episodeOrder}),
  meetups: spec({rowSchema: meetupRowSchema, itemSchema: meetupSchema, map: mapMeetup, order: meetupOrder}),
  voices: spec({rowSchema: voiceRowSchema, itemSchema: voiceSchema, map: mapVoice, order: voiceOrder}),
}

/**
 * One document as the API would serve it, without the rest of the catalog: `servedVoices` says
 * which voices its guests or speakers may link to. The Studio's "API" view shows this, with the
 * contract's objections worded by `error` (zod's error map for the editors' language).
 */
export function mapOneDocument(
  collection: CollectionName,
  raw: unknown,
  context: MappingContext,
  error?: z.core.$ZodErrorMap,
): MappedDocument<Episode | Meetup | Voice> {
  const documentId = documentIdOf(raw)
  if (collection === 'episodes') return mapDocument(specs.episodes, {raw, documentId}, context, error)
  if (collection === 'meetups') return mapDocument(specs.meetups, {raw, documentId}, context, error)
  return mapDocument(specs.voices, {raw, documentId}, context, error)
}

/** A refused document's `issues` are zod's (path in API field names); `messages`, the same as text. */
export type MappedDocument<Item> =
  | {ok: true; entry: CatalogEntry<Item>; warnings: string[]}
  | {ok: false; messages: string[]; issues: readonly z.core.$ZodIssue[]}

export function mapDocument<Row, Item>(
  spec: CollectionSpec<Row, Item>,
  {raw, documentId}: {raw: unknown; documentId: string},
  context: MappingContext,
  error?: z.core.$ZodErrorMap,
): MappedDocument<Item> {
  // Text is cleaned once, here, so no output (the feed, sitemaps, MCP) has to cope with it.
  const cleaned = cleanStrings(raw)
  const row = spec.rowSchema.safeParse(cleaned.value, {error: error ?? unionsSpelledOut})
  if (!row.success) return {ok: false, messages: describeIssues(row.error), issues: row.error.issues}
  const mapped = spec.map(row.data, context)
  const item = spec.itemSchema.safeParse(mapped.value, {error: error ?? unionsSpelledOut})
  if (!item.success) return {ok: false, messages: describeIssues(item.error), issues: item.error.issues}
  return {
    ok: true,
    entry: Object.freeze({
      value: item.data,
      updatedAt: mapped.updatedAt,
      documentId,
      ...(mapped.transcript ? {transcript: mapped.transcript} : {}),
    }),
    warnings: [...cleaned.found.map(({path}) => cleanedField(path.join('.'))), ...mapped.warnings],
  }
}

const cleanedField = (field: string) =>
  `${field}: removed characters that XML cannot carry (control characters, U+FFFE, U+FFFF or lone surrogates)`

export function documentIdOf(raw: unknown): string {
  const identified = documentIdSchema.safeParse(raw)
  return identified.success ? identified.data._id : '(no _id)'
}

/** zod words a value that fits no form of a union "Invalid input"; the operator is told the forms and the value. */
const unionsSpelledOut: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return undefined
  const forms = new Set(issue.errors.flatMap((issues) => issues.map((inner) => inner.message)))
  const got = typeof issue.input === 'string' ? JSON.stringify(issue.input.slice(0, 40)) : typeof issue.input
  return `fits none of its forms (${[...forms].join('; ')}); got ${got}`
}

function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  )
}
