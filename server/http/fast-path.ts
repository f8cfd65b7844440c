import type {IncomingMessage, ServerResponse} from 'node:http'
import {isCollectionName} from '../api/v1/links.ts'
import {LIST_PATH, parsePageRequest, withoutSandbox} from '../api/v1/router.ts'
import type {Representation} from '../snapshot/representation.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {sendRepresentation} from './representation-response.ts'

const API_PREFIX = '/api/v1'

/**
 * Answers a GET or HEAD for a pre-built representation with one lookup and one write, before
 * Express: no routing, serialization, hashing or compression. Returns false for anything else
 * (errors, other methods, odd URLs), which the Express application answers with the same rules.
 */
export type FastPath = (request: IncomingMessage, response: ServerResponse, extraHeaders: readonly string[]) => boolean

export function createFastPath(store: SnapshotStore): FastPath {
  return (request, response, extraHeaders) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false
    const url = request.url ?? ''
    const queryStart = url.indexOf('?')
    const path = queryStart === -1 ? url : url.slice(0, queryStart)
    const representation = lookUp(store, path, queryStart === -1 ? undefined : url.slice(queryStart + 1))
    if (!representation) return false
    sendRepresentation(request, response, representation, extraHeaders)
    return true
  }
}

function lookUp(store: SnapshotStore, path: string, query: string | undefined): Representation | undefined {
  const snapshot = store.current()
  if (!path.startsWith(`${API_PREFIX}/`)) return query === undefined ? snapshot.site(path) : undefined
  const catalogPath = withoutSandbox(path.slice(API_PREFIX.length))
  if (query === undefined) return snapshot.representation(catalogPath.slice(1))
  // Pages by `limit` and `cursor`; percent-encoded queries take the slow path, which checks them.
  const collection = LIST_PATH.exec(catalogPath)?.[1]
  if (!isCollectionName(collection)) return undefined
  if (query.includes('%')) return undefined
  const parsed = parsePageRequest(new URLSearchParams(query))
  if (!parsed.ok) return undefined
  const page = snapshot.listPage(collection, parsed.request)
  return page.ok ? page.representation : undefined
}
