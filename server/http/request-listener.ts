import type {IncomingMessage, RequestListener, ServerResponse} from 'node:http'
import {API_V1_PREFIX} from '../api/v1/links.ts'
import type {FastPath} from './fast-path.ts'
import {lifecycleHeaders, sendRetired, type VersionLifecycle} from './lifecycle.ts'
import {buildProblem, sendProblem} from './problem.ts'
import type {RateLimiter} from './rate-limit.ts'
import {requestIdSource} from './request-id.ts'

/** What the listener knows of a request it has answered. */
interface AnsweredRequest {
  id: string
  /** The request target as received (Express rewrites `request.url` for mounted routes). */
  url: string
  /** `performance.now()` when the request arrived. */
  startedAt: number
  /** What the connection had written when the request arrived, so an observer can tell what this response sent. */
  socketBytesBefore: number
}

/**
 * Sees every response once (logs, metrics) when it is done with: written out in full
 * (`response.writableFinished`) or cut short because the connection closed.
 */
export type RequestObserver = (request: IncomingMessage, response: ServerResponse, answered: AnsweredRequest) => void

export interface RequestListenerParts {
  /** Pre-built representations; answers true when it has responded. */
  fastPath: FastPath
  /** Everything else: errors, webhooks, MCP, status. */
  application: RequestListener
  rateLimiter?: RateLimiter | undefined
  observe?: RequestObserver | undefined
  /** Paths never rate limited: webhook deliveries (which carry signatures), metrics scrapes. */
  unlimitedPaths?: readonly string[]
  lifecycle?: VersionLifecycle | undefined
  publicBaseUrl: string
  clock?: (() => Date) | undefined
  onError: (error: unknown) => void
}

/** Longer than any URL the API hands out (a cursor page is under 300 bytes). */
export const MAX_URL_LENGTH = 2048
export const EXPOSED_HEADERS = 'ETag, Last-Modified, Link, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset'

/** Browsers may read the API from any origin, with GET or HEAD and the conditional request headers. */
export const PREFLIGHT_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Methods', 'GET, HEAD'],
  ['Access-Control-Allow-Headers', 'If-None-Match, If-Modified-Since, Cache-Control'],
  ['Access-Control-Max-Age', '86400'],
]

/**
 * The server's one entry point. Every response gets `nosniff` and, except on the MCP endpoint (which
 * refuses foreign origins), CORS for browsers; requests are rate limited; v1 responses carry the
 * version's lifecycle headers; then the fast path answers what it can and Express the rest.
 * The per-request headers travel as one flat list, which `writeHead` takes fastest.
 */
export function createRequestListener(parts: RequestListenerParts): RequestListener {
  const {fastPath, application, rateLimiter, observe, lifecycle, publicBaseUrl, clock = () => new Date(), onError} = parts
  const unlimitedPaths = new Set(parts.unlimitedPaths ?? [])
  const versionHeaders = lifecycle ? lifecycleHeaders(lifecycle).flat() : []
  const requestId = requestIdSource()

  const route = (request: IncomingMessage, response: ServerResponse, path: string, headers: string[]) => {
    if (path === API_V1_PREFIX || path.startsWith(`${API_V1_PREFIX}/`)) {
      if (lifecycle && clock() >= lifecycle.sunset) {
        sendRetired(request, response, lifecycle, publicBaseUrl, headers)
        return
      }
      for (const entry of versionHeaders) headers.push(entry)
    }
    let answered: boolean
    try {
      answered = fastPath(request, response, headers)
    } catch (error) {
      onError(error)
      if (!response.headersSent)
        sendProblem(request, response, buildProblem(publicBaseUrl, 500, 'The server failed to answer. The payload is static, so a retry with backoff is safe.', request.url ?? '/'), {}, headers)
      return
    }
    if (answered) return
    for (let index = 0; index + 1 < headers.length; index += 2) response.setHeader(headers[index] ?? '', headers[index + 1] ?? '')
    application(request, response)
  }

  const handle = (request: IncomingMessage, response: ServerResponse, id: string) => {
    const url = request.url ?? '/'
    const path = pathOf(url)
    const browserReadable = path !== '/mcp'
    // Array literals: measured, concat() here and in writeVariant went through V8's C++ builtin (half a microsecond a request together).
    const headers = browserReadable
      ? ['X-Content-Type-Options', 'nosniff', 'Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', EXPOSED_HEADERS, 'X-Request-Id', id]
      : ['X-Content-Type-Options', 'nosniff', 'X-Request-Id', id]
    if (url.length > MAX_URL_LENGTH) {
      sendProblem(request, response, buildProblem(publicBaseUrl, 414, `The URL is longer than ${MAX_URL_LENGTH} bytes.`, url.slice(0, 200)), {}, headers)
      return
    }
    if (browserReadable && isPreflight(request)) {
      response.writeHead(204, [...headers, ...PREFLIGHT_HEADERS.flat()])
      response.end()
      return
    }
    if (!rateLimiter || unlimitedPaths.has(path)) {
      route(request, response, path, headers)
      return
    }
    const allowed = rateLimiter(request, response, headers)
    if (allowed === true) {
      route(request, response, path, headers)
      return
    }
    if (allowed === false) return
    allowed.then(
      (answer) => {
        if (answer) route(request, response, path, headers)
      },
      () => route(request, response, path, headers), // the limiter reports its own failures and lets requests through
    )
  }

  return (request, response) => {
    const answered = {id: requestId(request), url: request.url ?? '/', startedAt: performance.now(), socketBytesBefore: request.socket.bytesWritten}
    handle(request, response, answered.id)
    // Not at once, even when the fast path has already called end(): only 'close' tells whether the
    // bytes went out, and how long that took. (A response closes once: `on` spares the wrapper `once` makes.)
    if (observe) response.on('close', () => observe(request, response, answered))
  }
}

/** The request target without its query. */
export function pathOf(url: string): string {
  const queryStart = url.indexOf('?')
  return queryStart === -1 ? url : url.slice(0, queryStart)
}

function isPreflight(request: IncomingMessage): boolean {
  return request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined
}
