import {z} from 'zod'
import {repeatedParameter} from './repeated-parameter.ts'
import {slugSchema} from '../../../catalog/v1/contract.ts'
import type {CollectionName} from '../../../catalog/v1/links.ts'

// `GET /api/v1/search.json?q=`: the catalog search MCP's search_catalog answers with
// (snapshot/search.ts), as a JSON document. Its parameters, its hit and its envelope.

/** The longest query, in characters (as MCP's search_catalog takes it): a question, not a document. */
export const SEARCH_QUERY_MAX_LENGTH = 200
/** Hits per answer when no `limit` is asked for, and the most a client may ask for. */
export const DEFAULT_SEARCH_LIMIT = 10
export const MAX_SEARCH_LIMIT = 50

/** Why a search is not answered yet: a large catalog's index is built in the background on its first search. */
export const indexBeingBuilt = (retryAfterSeconds: number) =>
  `The search index is being built (a large catalog is indexed in the background on its first search). Retry in ${retryAfterSeconds} s.`

const ITEM_TYPE = {episodes: 'episode', meetups: 'meetup', voices: 'voice'} as const satisfies Record<
  CollectionName,
  string
>

const uri = z.url({protocol: /^https?$/})

const searchCueSchema = z
  .strictObject({
    start_seconds: z
      .number()
      .nonnegative()
      .meta({description: 'When the cue starts, in seconds from the start of the audio.'}),
    end_seconds: z.number().nonnegative(),
    speaker: z.string().nullable().meta({description: 'Who says it; null when the cue names no one.'}),
    text: z.string().meta({description: 'The words around the match in the cue, as said.'}),
  })
  .meta({id: 'SearchCue', description: 'The transcript cue a search hit matched.'})
export type SearchCue = z.infer<typeof searchCueSchema>

const searchHitSchema = z
  .strictObject({
    type: z.enum(['episode', 'meetup', 'voice']).meta({description: 'Which list the item is in.'}),
    slug: slugSchema,
    title: z.string().meta({description: 'The title, or the name for a voice.'}),
    url: uri.meta({description: 'Canonical page: cite this.'}),
    api_url: uri.meta({description: "The item's API record, as the lists give it."}),
    score: z.number().meta({description: 'Relevance (BM25+ with field boosts); hits come highest first.'}),
    snippet: z.string().meta({description: 'The words around where the item matches, as written in the catalog.'}),
    cue: searchCueSchema.nullable().meta({
      description:
        "Where the match is said in the episode's transcript, so a player can start there; null when the item's transcript does not match, or, for the lower hits of a query matching many long transcripts, once the search has read its budget of 8 MiB of them.",
    }),
  })
  .meta({id: 'SearchHit', description: 'One item a search found.'})

const searchPaginationSchema = z
  .strictObject({
    limit: z.number().int().positive().meta({description: 'Hits requested.'}),
    count: z.number().int().nonnegative().meta({description: 'Hits returned in data.'}),
    total: z.number().int().nonnegative().meta({description: 'Items that match; the best `limit` are returned.'}),
  })
  .meta({
    id: 'SearchPagination',
    description:
      'How many matched. A search has no cursor: ask for a larger `limit` (up to 50) or refine the query, since ranks shift whenever content is published.',
  })

export const searchEnvelope = z
  .strictObject({data: z.array(searchHitSchema), pagination: searchPaginationSchema})
  .meta({id: 'SearchResults'})

export type SearchResults = z.infer<typeof searchEnvelope>

export interface SearchRequest {
  /** The query as sent, without surrounding white space. */
  query: string
  limit: number
}

/** A hit as the catalog search ranks it (snapshot/search.ts), before it is given its API shape. */
export interface RankedHit {
  collection: CollectionName
  slug: string
  title: string
  url: string
  api_url: string
  score: number
  snippet: string
  cue: SearchCue | null
}

/** The answer to `request`: the best `limit` of `ranked` (highest score first), and how many matched. */
export function searchResults(ranked: readonly RankedHit[], total: number, limit: number): SearchResults {
  const data = ranked.slice(0, limit).map(({collection, slug, title, url, api_url, score, snippet, cue}) => ({
    type: ITEM_TYPE[collection],
    slug,
    title,
    url,
    api_url,
    score,
    snippet,
    cue,
  }))
  return {data, pagination: {limit, count: data.length, total}}
}

export type SearchRequestResult = {ok: true; request: SearchRequest} | {ok: false; reason: string}

/**
 * `q` (required, 1 to 200 characters once trimmed) and `limit` (1 to 50, default 10); either given
 * twice is refused, other parameters are ignored, as the lists do.
 */
export function parseSearchRequest(query: URLSearchParams): SearchRequestResult {
  const repeated = repeatedParameter(query, ['q', 'limit'], ['q'])
  if (repeated) return {ok: false, reason: repeated}
  const queries = query.getAll('q')
  const limits = query.getAll('limit')
  const text = queries[0]?.trim() ?? ''
  if (text === '')
    return {
      ok: false,
      reason: `q is required: the words to search for, 1 to ${SEARCH_QUERY_MAX_LENGTH} characters (search.json?q=react)`,
    }
  if (text.length > SEARCH_QUERY_MAX_LENGTH)
    return {
      ok: false,
      reason: `q must be at most ${SEARCH_QUERY_MAX_LENGTH} characters; got ${text.length}. Search for a few words, not a passage`,
    }
  const limitText = limits[0]
  const limit =
    limitText === undefined ? DEFAULT_SEARCH_LIMIT : /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit >= 1 && limit <= MAX_SEARCH_LIMIT))
    return {
      ok: false,
      reason: `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}); got "${limitText}"`,
    }
  return {ok: true, request: {query: text, limit}}
}
