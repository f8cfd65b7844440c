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
    ETag: representation.etag,
    'Last-Modified': representation.lastModifiedHeader,
    'Cache-Control': CACHE_CONTROL,
  }
  if (fresh(request.headers, {etag: representation.etag, 'last-modified': representation.lastModifiedHeader})) {
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
