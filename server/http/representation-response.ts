import type {IncomingMessage, ServerResponse} from 'node:http'
import fresh from 'fresh'
import type {Representation} from '../snapshot/representation.ts'

/** Browsers and CDNs may reuse a response for a minute, and serve it stale while they revalidate. */
export const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300, stale-if-error=86400'

/**
 * Writes pre-built bytes, or a bodiless 304 when the request's validators match (RFC 9110
 * If-None-Match with weak comparison, lists and `*`; If-Modified-Since only without it; `fresh`
 * implements both). HEAD gets the headers of GET and no body.
 */
export function sendRepresentation(request: IncomingMessage, response: ServerResponse, representation: Representation): void {
  const validators = {
    ...representation.headers,
    ETag: representation.etag,
    'Last-Modified': representation.lastModifiedHeader,
    'Cache-Control': CACHE_CONTROL,
  }
  // Only the validators go to `fresh`: its rule that a request's `Cache-Control: no-cache` forces a
  // 200 suits caches, but an origin must evaluate the preconditions (RFC 9110, 13.2.1), and fetch()
  // adds that directive to every request that carries If-None-Match.
  const preconditions = {'if-none-match': request.headers['if-none-match'], 'if-modified-since': request.headers['if-modified-since']}
  if (fresh(preconditions, {etag: representation.etag, 'last-modified': representation.lastModifiedHeader})) {
    response.writeHead(304, validators)
    response.end()
    return
  }
  response.writeHead(200, {
    ...validators,
    'Content-Type': representation.contentType,
    'Content-Length': representation.body.length,
    'X-Content-Type-Options': 'nosniff',
  })
  response.end(request.method === 'HEAD' ? undefined : representation.body)
}
