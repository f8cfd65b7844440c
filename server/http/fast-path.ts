import type {IncomingMessage, ServerResponse} from 'node:http'
import {API_V1_PREFIX} from '../../catalog/v1/links.ts'
import {resolveCatalogPath} from './resolve.ts'
import type {Representation} from '../snapshot/representation.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {sendRepresentation} from './representation-response.ts'
import type {ResponseHeaders} from './response-headers.ts'
import {splitTarget} from './request-target.ts'

/** Which snapshot answered: items outlive snapshots, so the version cannot be one of their own headers. */
const CATALOG_VERSION = 'Catalog-Version'
export const catalogVersionHeader = (snapshot: Snapshot): string[] => [CATALOG_VERSION, snapshot.version]

/**
 * Answers a GET or HEAD for a pre-built representation with one lookup and one write, before
 * Express: no routing, serialization, hashing or compression. Returns false for anything else
 * (problems, other methods, percent-encoded URLs), which the Express application answers through
 * the same resolver.
 */
export type FastPath = (request: IncomingMessage, response: ServerResponse, headers: ResponseHeaders) => boolean

export function createFastPath(store: Pick<SnapshotStore, 'current'>, publicBaseUrl: string): FastPath {
  const lookUp = (snapshot: Snapshot, url: string): Representation | undefined => {
    // Percent-encoding may be malformed, which Express refuses with a 400 before resolving.
    if (url.includes('%')) return undefined
    const {path, query} = splitTarget(url)
    if (!path.startsWith(`${API_V1_PREFIX}/`)) return query === undefined ? snapshot.site(path) : undefined
    const resolution = resolveCatalogPath(snapshot, publicBaseUrl, path.slice(API_V1_PREFIX.length), query ?? '')
    return resolution.found ? resolution.representation : undefined
  }
  return (request, response, headers) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false
    const snapshot = store.current()
    const representation = lookUp(snapshot, request.url ?? '')
    if (!representation) return false
    headers.add(CATALOG_VERSION, snapshot.version)
    sendRepresentation(request, response, representation, {headers, servedFrom: {store, snapshot}})
    return true
  }
}
