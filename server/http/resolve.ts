import {DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT} from '../../catalog/v1/contract.ts'
import type {PageRequest, Snapshot} from '../snapshot/snapshot.ts'
import type {Representation} from '../snapshot/representation.ts'
import {SLUG_MAX_LENGTH, SLUG_PATTERN} from '../../catalog/v1/contract.ts'
import {indexBeingBuilt, parseSearchRequest} from '../api/v1/search.ts'
import {parseChangesRequest} from '../api/v1/changes.ts'
import {repeatedParameter} from '../api/v1/repeated-parameter.ts'
import {isTranscriptExtension} from '../../catalog/v1/transcript.ts'
import {API_V1_PREFIX, COLLECTION_PATTERN, isCollectionName, type CollectionName} from '../../catalog/v1/links.ts'

const SANDBOX_PREFIX = '/sandbox'
export const LIST_PATH = new RegExp(`^/(${COLLECTION_PATTERN})\\.json$`)
export const ITEM_PATH = new RegExp(`^/(${COLLECTION_PATTERN})/([^/]*)\\.json$`)
export const CHAPTERS_PATH = /^\/episodes\/([^/]*)\/chapters\.json$/
export const TRANSCRIPT_PATH = /^\/episodes\/([^/]*)\/transcript\.(vtt|srt|json)$/
const DOCUMENT_PATHS = new Set(['/index.json', '/all.json'])
export const SEARCH_PATH = '/search.json'
export const CHANGES_PATH = '/changes.json'
const SINGULAR: Record<CollectionName, string> = {episodes: 'episode', meetups: 'meetup talk', voices: 'speaker'}

/**
 * What a path under `/api/v1` names in a snapshot. `names` says whether the path names a resource
 * at all: such a path answers other methods with 405, any other path is a 404 whatever the method.
 */
export type Resolution =
  | {found: true; representation: Representation}
  | {found: false; names: boolean; status: 400 | 404 | 410; detail: string}
  | {found: false; names: true; status: 503; detail: string; retryAfterSeconds: number}

/**
 * Whether `path` names a resource whatever the snapshot holds: search, the change feed, the lists
 * and the two documents. Another method is refused on these before anything is resolved, since
 * resolving them may build a page or start the search index's build.
 */
export function namesWithoutLookup(path: string): boolean {
  const catalogPath = withoutSandbox(path)
  return (
    catalogPath === SEARCH_PATH ||
    catalogPath === CHANGES_PATH ||
    LIST_PATH.test(catalogPath) ||
    DOCUMENT_PATHS.has(catalogPath)
  )
}

/**
 * The one reading of `/api/v1` (and `/api/v1/sandbox`) URLs, used by the fast path and the Express
 * application alike, so the two cannot disagree. `path` is relative to `/api/v1` (`/episodes.json`);
 * `query` is the raw query string without `?`, empty when there is none. Items and documents
 * ignore the query (a `utm_source` changes nothing); lists read `limit` and `cursor`, search `q` and `limit`.
 */
export function resolveCatalogPath(snapshot: Snapshot, publicBaseUrl: string, path: string, query: string): Resolution {
  const catalogPath = withoutSandbox(path)
  if (catalogPath === SEARCH_PATH) {
    const parsed = parseSearchRequest(new URLSearchParams(query))
    if (!parsed.ok) return {found: false, names: true, status: 400, detail: parsed.reason}
    const answer = snapshot.searchPage(parsed.request)
    if (answer.ready) return {found: true, representation: answer.representation}
    const {retryAfterSeconds} = answer
    return {found: false, names: true, status: 503, detail: indexBeingBuilt(retryAfterSeconds), retryAfterSeconds}
  }
  if (catalogPath === CHANGES_PATH) {
    const parsed = parseChangesRequest(new URLSearchParams(query))
    if (!parsed.ok) return {found: false, names: true, status: 400, detail: parsed.reason}
    const page = snapshot.changesPage(parsed.request)
    return page.ok
      ? {found: true, representation: page.representation}
      : {found: false, names: true, status: 410, detail: page.detail}
  }
  if (catalogPath.endsWith('/chapters.json')) return resolveChapters(snapshot, publicBaseUrl, catalogPath)
  if (catalogPath.includes('/transcript.')) return resolveTranscript(snapshot, publicBaseUrl, catalogPath)
  const {collection, itemCollection, slug} = splitCatalogPath(catalogPath)
  if (isCollectionName(collection)) {
    const parsed = parsePageRequest(query === '' ? undefined : new URLSearchParams(query))
    if (!parsed.ok) return {found: false, names: true, status: 400, detail: parsed.reason}
    const page = snapshot.listPage(collection, parsed.request)
    return page.ok
      ? {found: true, representation: page.representation}
      : {found: false, names: true, status: 400, detail: page.reason}
  }

  if (isCollectionName(itemCollection) && slug !== undefined) {
    const representation = snapshot.item(itemCollection, slug)
    if (representation) return {found: true, representation}
    const detail = isSlug(slug)
      ? missingItemDetail(publicBaseUrl, itemCollection, slug)
      : notASlugDetail(publicBaseUrl, itemCollection, slug)
    return {found: false, names: false, status: 404, detail}
  }

  const document = DOCUMENT_PATHS.has(catalogPath) ? snapshot.representation(catalogPath.slice(1)) : undefined
  if (document) return {found: true, representation: document}
  return {found: false, names: false, status: 404, detail: unknownApiPathDetail(publicBaseUrl)}
}

/** An episode's chapters document: a 404 names the episode when it is served without chapters. */
function resolveChapters(snapshot: Snapshot, publicBaseUrl: string, catalogPath: string): Resolution {
  const slug = CHAPTERS_PATH.exec(catalogPath)?.[1]
  if (slug === undefined) return {found: false, names: false, status: 404, detail: unknownApiPathDetail(publicBaseUrl)}
  return episodeDocument(snapshot, publicBaseUrl, slug, snapshot.chapters(slug), 'chapters: its chapters_url is null')
}

/** An episode's transcript in one format: a 404 names the episode when it holds no transcript of its own. */
function resolveTranscript(snapshot: Snapshot, publicBaseUrl: string, catalogPath: string): Resolution {
  const [, slug, extension] = TRANSCRIPT_PATH.exec(catalogPath) ?? []
  if (slug === undefined || !isTranscriptExtension(extension))
    return {found: false, names: false, status: 404, detail: unknownApiPathDetail(publicBaseUrl)}
  const why =
    'transcript this API serves: its transcript_revision is null (its transcript, if any, is the external file it links)'
  return episodeDocument(snapshot, publicBaseUrl, slug, snapshot.transcript(slug, extension), why)
}

function episodeDocument(
  snapshot: Snapshot,
  publicBaseUrl: string,
  slug: string,
  representation: Representation | undefined,
  lacks: string,
): Resolution {
  if (representation) return {found: true, representation}
  const detail = snapshot.item('episodes', slug)
    ? `The episode "${slug}" has no ${lacks}. See ${publicBaseUrl}${API_V1_PREFIX}/episodes/${slug}.json.`
    : isSlug(slug)
      ? missingItemDetail(publicBaseUrl, 'episodes', slug)
      : notASlugDetail(publicBaseUrl, 'episodes', slug)
  return {found: false, names: false, status: 404, detail}
}

/**
 * What LIST_PATH (`collection`) and ITEM_PATH (`itemCollection`, `slug`) would capture from `path`,
 * found with indexOf instead: on every request, the two expressions cost a third of a microsecond.
 */
function splitCatalogPath(path: string): {collection?: string; itemCollection?: string; slug?: string} {
  if (!path.startsWith('/') || !path.endsWith('.json')) return {}
  const slash = path.indexOf('/', 1)
  if (slash === -1) return {collection: path.slice(1, -'.json'.length)}
  if (path.indexOf('/', slash + 1) !== -1) return {}
  return {itemCollection: path.slice(1, slash), slug: path.slice(slash + 1, -'.json'.length)}
}

// Problem details, shared with the static export's nginx configuration so both say the same.
export const missingItemDetail = (publicBaseUrl: string, collection: CollectionName, slug: string) =>
  `No ${SINGULAR[collection]} has the slug "${slug}". Re-read ${publicBaseUrl}${API_V1_PREFIX}/${collection}.json for current slugs; slugs change only when content is renamed.`
export const notASlugDetail = (publicBaseUrl: string, collection: CollectionName, slug: string) =>
  `"${slug}" is not a slug: slugs match ^[a-z0-9-]+$ and have at most ${SLUG_MAX_LENGTH} characters. See ${publicBaseUrl}${API_V1_PREFIX}/${collection}.json.`
export const unknownApiPathDetail = (publicBaseUrl: string) =>
  `No such path under ${API_V1_PREFIX}. The service index ${publicBaseUrl}${API_V1_PREFIX}/index.json lists every endpoint.`

/** A path under `/api/v1` with the sandbox prefix taken off: the sandbox serves the same documents. */
export function withoutSandbox(path: string): string {
  return path.startsWith(`${SANDBOX_PREFIX}/`) ? path.slice(SANDBOX_PREFIX.length) : path
}

function isSlug(value: string): boolean {
  return value.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(value)
}

type PageRequestResult = {ok: true; request: PageRequest} | {ok: false; reason: string}

/** `limit` (1 to 500, default 100) and `cursor` (opaque, from `next_cursor`); other parameters are ignored. */
function parsePageRequest(query: URLSearchParams | undefined): PageRequestResult {
  if (!query) return {ok: true, request: {limit: DEFAULT_PAGE_LIMIT, cursor: null}}
  const repeated = repeatedParameter(query, ['limit', 'cursor'])
  if (repeated) return {ok: false, reason: repeated}
  const limits = query.getAll('limit')
  const cursors = query.getAll('cursor')
  const limitText = limits[0]
  const limit =
    limitText === undefined ? DEFAULT_PAGE_LIMIT : /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    return {
      ok: false,
      reason: `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}); got "${limitText}"`,
    }
  }
  return {ok: true, request: {limit, cursor: cursors[0] || null}}
}
