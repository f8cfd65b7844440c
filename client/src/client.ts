import {EtagCache} from './etag-cache.ts'
import {createHttp, type FetchFunction} from './http.ts'
import type {operations, paths} from './openapi.ts'
import {itemsOf} from './pages.ts'
import {sync, type CatalogMirror, type SyncResult} from './sync.ts'
import type {Episode, Meetup, OkBody, OperationId, Query, Voice} from './types.ts'

export interface CatalogClientOptions {
  /** The API's root, as the OpenAPI document's `servers` name it: `https://host/api/v1`, or its sandbox. */
  baseUrl: string
  /** The global `fetch` unless given (a test's recorder, a fetch with a proxy or a timeout). */
  fetch?: FetchFunction
  /** How many answers the ETag cache keeps for revalidation, least recently used out first; 0 keeps none. */
  cacheEntries?: number
}

const DEFAULT_CACHE_ENTRIES = 500
/** The change feed's largest page: an initial sync in as few requests as the server allows. */
const SYNC_PAGE_LIMIT = 500

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** The path template whose GET is the operation `Id`, so the map below cannot pair them wrongly. */
type PathOf<Id extends OperationId> = {
  [Path in keyof paths]: Same<paths[Path]['get'], operations[Id]> extends true ? Path : never
}[keyof paths]

/** Every operation of the OpenAPI document: a new one fails the type check until the client has it. */
const PATHS = {
  getServiceIndex: '/index.json',
  listEpisodes: '/episodes.json',
  getEpisode: '/episodes/{slug}.json',
  getEpisodeChapters: '/episodes/{slug}/chapters.json',
  getEpisodeTranscriptVtt: '/episodes/{slug}/transcript.vtt',
  getEpisodeTranscriptSrt: '/episodes/{slug}/transcript.srt',
  getEpisodeTranscriptJson: '/episodes/{slug}/transcript.json',
  listMeetups: '/meetups.json',
  getMeetup: '/meetups/{slug}.json',
  listVoices: '/voices.json',
  getVoice: '/voices/{slug}.json',
  getEverything: '/all.json',
  getChanges: '/changes.json',
  searchCatalog: '/search.json',
  streamEvents: '/events',
} as const satisfies {[Id in OperationId]: PathOf<Id>}

type ListOptions = Omit<Query<'listEpisodes'>, 'cursor'>

/** A typed client of the catalog API; its methods are named by the OpenAPI document's operationIds. */
export function createCatalogClient(options: CatalogClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '')
  // Called as a plain function: a browser's fetch refuses to run as another object's method.
  const http = createHttp(
    options.fetch ?? ((url, init) => fetch(url, init)),
    new EtagCache(options.cacheEntries ?? DEFAULT_CACHE_ENTRIES),
  )
  const urlOf = (id: OperationId, slug?: string, query: Record<string, string | number | undefined> = {}) => {
    const url = new URL(`${base}${PATHS[id].replace('{slug}', encodeURIComponent(slug ?? ''))}`)
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value))
    return url.toString()
  }
  return {
    /** The live event stream's URL, for an `EventSource` (which reconnects with `Last-Event-ID` by itself). */
    streamEvents: () => urlOf('streamEvents'),
    getServiceIndex: async () => (await http.get<OkBody<'getServiceIndex'>>(urlOf('getServiceIndex'))).data,
    getEpisode: async (slug: string) => (await http.get<OkBody<'getEpisode'>>(urlOf('getEpisode', slug))).data,
    getMeetup: async (slug: string) => (await http.get<OkBody<'getMeetup'>>(urlOf('getMeetup', slug))).data,
    getVoice: async (slug: string) => (await http.get<OkBody<'getVoice'>>(urlOf('getVoice', slug))).data,
    /** The episode's chapters (Podcasting 2.0 JSON chapters); a 404 problem when it has none. */
    getEpisodeChapters: (slug: string) => http.get<OkBody<'getEpisodeChapters'>>(urlOf('getEpisodeChapters', slug)),
    /** The episode's transcript as timed segments (the Podcasting 2.0 JSON transcript); a 404 problem when it holds none. */
    getEpisodeTranscript: (slug: string) =>
      http.get<OkBody<'getEpisodeTranscriptJson'>>(urlOf('getEpisodeTranscriptJson', slug)),
    /** Where a player or a `<track>` element reads the transcript as WebVTT (captions) or SubRip. */
    transcriptUrl: (slug: string, format: 'vtt' | 'srt') =>
      urlOf(format === 'vtt' ? 'getEpisodeTranscriptVtt' : 'getEpisodeTranscriptSrt', slug),
    /** Every episode, newest first, page after page. */
    listEpisodes: (list: ListOptions = {}) => itemsOf<Episode>(http, urlOf('listEpisodes', undefined, list)),
    listMeetups: (list: ListOptions = {}) => itemsOf<Meetup>(http, urlOf('listMeetups', undefined, list)),
    listVoices: (list: ListOptions = {}) => itemsOf<Voice>(http, urlOf('listVoices', undefined, list)),
    /** The whole catalog in one document (`all.json`). */
    getEverything: () => http.get<OkBody<'getEverything'>>(urlOf('getEverything')),
    searchCatalog: (q: string, search: Omit<Query<'searchCatalog'>, 'q'> = {}) =>
      http.get<OkBody<'searchCatalog'>>(urlOf('searchCatalog', undefined, {...search, q})),
    /**
     * Brings `mirror` (a new one if none is given) up to date from `changes.json`: an initial sync,
     * then only what changed since its token; a token the server no longer knows starts over by itself.
     */
    sync: (mirror?: CatalogMirror, feed: {limit?: number} = {}): Promise<SyncResult> =>
      sync(http, urlOf('getChanges'), mirror, feed.limit ?? SYNC_PAGE_LIMIT),
  }
}

export type CatalogClient = ReturnType<typeof createCatalogClient>
