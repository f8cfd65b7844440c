import type {IncomingMessage, RequestListener, ServerResponse} from 'node:http'
import {lifecycleHeaders, sendRetired, type VersionLifecycle} from './lifecycle.ts'
import {buildProblem, sendProblem} from './problem.ts'
import type {RateLimiter} from './rate-limit.ts'

export interface RequestListenerParts {
  /** Pre-built representations; answers true when it has responded. */
  fastPath: (request: IncomingMessage, response: ServerResponse) => boolean
  /** Everything else: errors, webhooks, MCP, status. */
  application: RequestListener
  rateLimiter?: RateLimiter
  lifecycle?: VersionLifecycle
  publicBaseUrl: string
  clock?: () => Date
  onError: (error: unknown) => void
}

/** Longer than any URL the API hands out (a cursor page is under 300 bytes). */
export const MAX_URL_LENGTH = 2048
const API_VERSION_PREFIX = '/api/v1'
// Authenticated by their signatures, or read by the operator's own tooling: never rate limited.
const UNLIMITED_PATHS = new Set(['/webhooks/sanity', '/metrics'])
export const EXPOSED_HEADERS = 'ETag, Last-Modified, Link, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset'

/**
 * The server's one entry point. Every response gets `nosniff` and, except on the MCP endpoint (which
 * refuses foreign origins), CORS for browsers; requests are rate limited; v1 responses carry the version's
 * lifecycle headers; then the fast path answers what it can and Express the rest.
 */
export function createRequestListener(parts: RequestListenerParts): RequestListener {
  const {fastPath, application, rateLimiter, lifecycle, publicBaseUrl, clock = () => new Date(), onError} = parts
  const versionHeaders = lifecycle ? lifecycleHeaders(lifecycle) : []

  const route = (request: IncomingMessage, response: ServerResponse, path: string) => {
    if (path === API_VERSION_PREFIX || path.startsWith(`${API_VERSION_PREFIX}/`)) {
      if (lifecycle && clock() >= lifecycle.sunset) return sendRetired(request, response, lifecycle, publicBaseUrl)
      for (const [name, value] of versionHeaders) response.setHeader(name, value)
    }
    let answered = false
    try {
      answered = fastPath(request, response)
    } catch (error) {
      onError(error)
      if (!response.headersSent) sendProblem(request, response, buildProblem(publicBaseUrl, 500, 'The server failed to answer. The payload is static, so a retry with backoff is safe.', request.url ?? '/'))
      return
    }
    if (!answered) application(request, response)
  }

  return (request, response) => {
    const url = request.url ?? '/'
    const queryStart = url.indexOf('?')
    const path = queryStart === -1 ? url : url.slice(0, queryStart)
    response.setHeader('X-Content-Type-Options', 'nosniff')
    const browserReadable = path !== '/mcp'
    if (browserReadable) {
      response.setHeader('Access-Control-Allow-Origin', '*')
      response.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS)
    }
    if (url.length > MAX_URL_LENGTH) {
      return sendProblem(request, response, buildProblem(publicBaseUrl, 414, `The URL is longer than ${MAX_URL_LENGTH} bytes.`, url.slice(0, 200)))
    }
    if (browserReadable && isPreflight(request)) return answerPreflight(response)
    if (!rateLimiter || UNLIMITED_PATHS.has(path)) return route(request, response, path)
    rateLimiter(request, response).then(
      (allowed) => {
        if (allowed) route(request, response, path)
      },
      () => route(request, response, path), // the limiter reports its own failures and lets requests through
    )
  }
}

function isPreflight(request: IncomingMessage): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined
}

/** Browsers may read the API from any origin, with GET or HEAD and the conditional request headers. */
export const PREFLIGHT_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Methods', 'GET, HEAD'],
  ['Access-Control-Allow-Headers', 'If-None-Match, If-Modified-Since, Cache-Control'],
  ['Access-Control-Max-Age', '86400'],
]

function answerPreflight(response: ServerResponse): void {
  response.writeHead(204, PREFLIGHT_HEADERS.flat())
  response.end()
}
