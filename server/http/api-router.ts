import type {IncomingMessage, ServerResponse} from 'node:http'
import {buildProblem, isReadMethod, sendMethodNotAllowed, sendProblem} from './problem.ts'
import {catalogVersionHeader} from './fast-path.ts'
import {sendRepresentation} from './representation-response.ts'
import {ResponseHeaders} from './response-headers.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {namesWithoutLookup, resolveCatalogPath} from './resolve.ts'

/**
 * Serves `/api/v1` and, with byte-identical payloads, `/api/v1/sandbox`: whatever the fast path
 * did not answer (other methods, problems, percent-encoded queries). `path` is relative to the
 * mount point. Every answer is a snapshot lookup through the fast path's own resolver.
 */
export function createCatalogHandler(store: Pick<SnapshotStore, 'current'>, publicBaseUrl: string) {
  return (
    request: IncomingMessage,
    response: ServerResponse,
    target: {path: string; query: string; instance: string},
  ): void => {
    const reads = isReadMethod(request.method)
    if (!reads && namesWithoutLookup(target.path))
      return sendReadOnlyRefusal(request, response, publicBaseUrl, target.instance)
    const snapshot = store.current()
    const resolution = resolveCatalogPath(snapshot, publicBaseUrl, target.path, target.query)
    // A path that names a resource refuses other methods; an unknown path is a 404 whatever the method.
    const names = resolution.found || resolution.names
    if (names && !reads) return sendReadOnlyRefusal(request, response, publicBaseUrl, target.instance)
    if (resolution.found)
      return sendRepresentation(request, response, resolution.representation, {
        headers: new ResponseHeaders(catalogVersionHeader(snapshot)),
        servedFrom: {store, snapshot},
      })
    // A search waiting for its index says when to come back (RFC 9110 10.2.3).
    const retry: Record<string, string> =
      resolution.status === 503 ? {'Retry-After': String(resolution.retryAfterSeconds)} : {}
    sendProblem(
      request,
      response,
      buildProblem(publicBaseUrl, resolution.status, resolution.detail, target.instance),
      retry,
    )
  }
}

export const readOnlyDetail = (method: string) =>
  `The API is read-only: ${method} is not supported. Retry as GET or HEAD.`

/** The 405 every read-only document answers to another method. */
export function sendReadOnlyRefusal(
  request: IncomingMessage,
  response: ServerResponse,
  publicBaseUrl: string,
  instance: string,
): void {
  sendMethodNotAllowed(request, response, {
    publicBaseUrl,
    allow: 'GET, HEAD',
    instance,
    detail: readOnlyDetail(request.method ?? ''),
  })
}
