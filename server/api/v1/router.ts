import type {IncomingMessage, ServerResponse} from 'node:http'
import {buildProblem, isReadMethod, sendMethodNotAllowed, sendProblem} from '../../http/problem.ts'
import {sendRepresentation} from '../../http/representation-response.ts'
import {DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, type PageRequest} from '../../snapshot/snapshot.ts'
import type {SnapshotStore} from '../../snapshot/store.ts'
import {SLUG_MAX_LENGTH, SLUG_PATTERN} from './contract.ts'
import {isCollectionName, type CollectionName} from './links.ts'

const SANDBOX_PREFIX = '/sandbox'
export const LIST_PATH = /^\/(episodes|meetups|voices)\.json$/
const ITEM_PATH = /^\/(episodes|meetups|voices)\/([^/]*)\.json$/
const DOCUMENT_PATHS = new Set(['/index.json', '/all.json'])
const SINGULAR: Record<CollectionName, string> = {episodes: 'episode', meetups: 'meetup talk', voices: 'speaker'}

type PageRequestResult = {ok: true; request: PageRequest} | {ok: false; reason: string}

/**
 * Serves `/api/v1` and, with byte-identical payloads, `/api/v1/sandbox`. `path` is relative to
 * the mount point. Every answer is a snapshot lookup: no serialization or hashing here.
 */
export function createCatalogHandler(store: SnapshotStore, publicBaseUrl: string) {
  return (request: IncomingMessage, response: ServerResponse, target: {path: string; query: string; instance: string}): void => {
    const {path, query, instance} = target
    const fail = (status: 400 | 404, detail: string) => sendProblem(request, response, buildProblem(publicBaseUrl, status, detail, instance))
    // Checked once the path names a resource: an unknown path is a 404 whatever the method.
    const readOnly = () => {
      if (isReadMethod(request.method)) return true
      sendReadOnlyRefusal(request, response, publicBaseUrl, instance)
      return false
    }
    const catalogPath = withoutSandbox(path)
    const snapshot = store.current()

    const list = LIST_PATH.exec(catalogPath)
    const collection = list?.[1]
    if (isCollectionName(collection)) {
      if (!readOnly()) return
      const parsed = parsePageRequest(new URLSearchParams(query))
      if (!parsed.ok) return fail(400, parsed.reason)
      const page = snapshot.listPage(collection, parsed.request)
      return page.ok ? sendRepresentation(request, response, page.representation) : fail(400, page.reason)
    }

    const [, itemCollection, slug] = ITEM_PATH.exec(catalogPath) ?? []
    if (isCollectionName(itemCollection) && slug !== undefined) {
      const representation = snapshot.item(itemCollection, slug)
      if (representation) {
        if (readOnly()) sendRepresentation(request, response, representation)
        return
      }
      return fail(404, isSlug(slug) ? missingItemDetail(publicBaseUrl, itemCollection, slug) : notASlugDetail(publicBaseUrl, itemCollection, slug))
    }

    const document = DOCUMENT_PATHS.has(catalogPath) ? snapshot.representation(catalogPath.slice(1)) : undefined
    if (document) {
      if (readOnly()) sendRepresentation(request, response, document)
      return
    }
    fail(404, unknownApiPathDetail(publicBaseUrl))
  }
}

// Problem details, shared with the static export's nginx configuration so both say the same.
export const missingItemDetail = (publicBaseUrl: string, collection: CollectionName, slug: string) =>
  `No ${SINGULAR[collection]} has the slug "${slug}". Re-read ${publicBaseUrl}/api/v1/${collection}.json for current slugs; slugs change only when content is renamed.`
export const notASlugDetail = (publicBaseUrl: string, collection: CollectionName, slug: string) =>
  `"${slug}" is not a slug: slugs match ^[a-z0-9-]+$ and have at most ${SLUG_MAX_LENGTH} characters. See ${publicBaseUrl}/api/v1/${collection}.json.`
export const unknownApiPathDetail = (publicBaseUrl: string) => `No such path under /api/v1. The service index ${publicBaseUrl}/api/v1/index.json lists every endpoint.`
export const readOnlyDetail = (method: string) => `The API is read-only: ${method} is not supported. Retry as GET or HEAD.`

/** A path under `/api/v1` with the sandbox prefix taken off: the sandbox serves the same documents. */
export function withoutSandbox(path: string): string {
  return path.startsWith(`${SANDBOX_PREFIX}/`) ? path.slice(SANDBOX_PREFIX.length) : path
}

/** The 405 every read-only document answers to another method. */
export function sendReadOnlyRefusal(request: IncomingMessage, response: ServerResponse, publicBaseUrl: string, instance: string): void {
  sendMethodNotAllowed(request, response, {publicBaseUrl, allow: 'GET, HEAD', instance, detail: readOnlyDetail(request.method ?? '')})
}

function isSlug(value: string): boolean {
  return value.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(value)
}

/** `limit` (1 to 500, default 100) and `cursor` (opaque, from `next_cursor`); other parameters are ignored. */
export function parsePageRequest(query: URLSearchParams): PageRequestResult {
  const limits = query.getAll('limit')
  const cursors = query.getAll('cursor')
  if (limits.length > 1) return {ok: false, reason: 'limit is given more than once; send it at most once'}
  if (cursors.length > 1) return {ok: false, reason: 'cursor is given more than once; send it at most once'}
  const limitText = limits[0]
  const limit = limitText === undefined ? DEFAULT_PAGE_LIMIT : /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN
  if (!(limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    return {ok: false, reason: `limit must be a whole number from 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}); got "${limitText}"`}
  }
  return {ok: true, request: {limit, cursor: cursors[0] || null}}
}
