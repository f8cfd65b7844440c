import type {IncomingMessage, RequestListener, ServerResponse} from 'node:http'
import {API_V1_PREFIX} from '../../catalog/v1/links.ts'
import type {FastPath} from './fast-path.ts'
import {
  fixedHeaders,
  joinFixedHeaders,
  NO_FIXED_HEADERS,
  ResponseHeaders,
  type FixedHeaders,
} from './response-headers.ts'
import {lifecycleHeaders, sendRetired, type VersionLifecycle} from './lifecycle.ts'
import {buildProblem, sendProblem} from './problem.ts'
import type {RateLimiter} from './rate-limit.ts'
import {requestIdSource} from './request-id.ts'
import {pathOf} from './request-target.ts'
import type {Clock} from '../clock.ts'

/** What the listener knows of a request it has answered. */
interface AnsweredRequest {
  id: string
  /** The request target as received (Express rewrites `request.url` for mounted routes). */
  url: string
  /** `performance.now()` when the request arrived. */
  startedAt: number
  /** What the connection had written when the request arrived, so an observer can tell what this response sent. */
  socketBytesBefore: number
  /** Whether the whole response had been handed to the connection when it was observed (false when the connection closed first); false, not measured, when an observer that is not `timed` sees a response as soon as its head is written. */
  completed: boolean
}

/**
 * Sees every response once (logs, metrics) when it is done with: handed to the connection in full
 * (at once when the listener's own call wrote it all) or cut short because the connection closed.
 * An observer that is not `timed` (metrics, which read the status) sees a response whose head was
 * written at once right then, since its status is final.
 */
export type RequestObserver = (request: IncomingMessage, response: ServerResponse, answered: AnsweredRequest) => void

export interface RequestListenerParts {
  /** Pre-built representations; answers true when it has responded. */
  fastPath: FastPath
  /** Everything else: errors, webhooks, MCP, status. */
  application: RequestListener
  rateLimiter?: RateLimiter | undefined
  observe?: RequestObserver | undefined
  /** Whether `observe` reads `startedAt`, `socketBytesBefore` and what was sent (the request log does); otherwise they are NaN, not measured, and a response is observed as soon as its status is final. */
  timed?: boolean | undefined
  /** Paths never rate limited: webhook deliveries (which carry signatures), metrics scrapes. */
  unlimitedPaths?: readonly string[]
  /** Paths `observe` never sees: a load balancer's probe every few seconds is not traffic, and would drown the log. */
  unobservedPaths?: readonly string[]
  lifecycle?: VersionLifecycle | undefined
  publicBaseUrl: string
  clock?: Clock | undefined
  onError: (error: unknown) => void
}

/** Longer than any URL the API hands out (a cursor page is under 300 bytes). */
export const MAX_URL_LENGTH = 2048
export const EXPOSED_HEADERS =
  'ETag, Last-Modified, Link, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset'

/** Browsers may read the API from any origin, with GET or HEAD and the conditional request headers. */
export const PREFLIGHT_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Methods', 'GET, HEAD'],
  ['Access-Control-Allow-Headers', 'If-None-Match, If-Modified-Since, Cache-Control'],
  ['Access-Control-Max-Age', '86400'],
]
const NOSNIFF = fixedHeaders(['X-Content-Type-Options', 'nosniff'])
const BROWSER_READABLE = joinFixedHeaders(
  NOSNIFF,
  fixedHeaders(['Access-Control-Allow-Origin', '*', 'Access-Control-Expose-Headers', EXPOSED_HEADERS]),
)
/** A preflight's shared lines: a browser's, then what it may ask for. */
const PREFLIGHT = joinFixedHeaders(BROWSER_READABLE, fixedHeaders(PREFLIGHT_HEADERS.flat()))

/** Which of the shared headers a response carries. */
const BROWSER = 1
const LIMITED = 2
const VERSIONED = 4

/**
 * The server's one entry point. Every response gets `nosniff` and, except on the MCP endpoint (which
 * refuses foreign origins), CORS for browsers; requests are rate limited; v1 responses carry the
 * version's lifecycle headers; then the fast path answers what it can and Express the rest.
 * Each request's headers travel as one `ResponseHeaders` (response-headers.ts): the lines many
 * responses share (CORS, nosniff, the rate-limit policy, the version's lifecycle), validated and
 * joined once and chosen here as the request goes on, and the request's own.
 */
export function createRequestListener(parts: RequestListenerParts): RequestListener {
  const {
    fastPath,
    application,
    rateLimiter,
    observe,
    timed = true,
    lifecycle,
    publicBaseUrl,
    clock = () => new Date(),
    onError,
  } = parts
  const unlimitedPaths = new Set(parts.unlimitedPaths ?? [])
  const unobservedPaths = new Set(parts.unobservedPaths ?? [])
  const requestId = requestIdSource()
  const versionHeaders = lifecycle ? fixedHeaders(lifecycleHeaders(lifecycle).flat()) : NO_FIXED_HEADERS
  const shared: FixedHeaders[] = []
  for (let set = 0; set < 8; set += 1) {
    let fixed = set & BROWSER ? BROWSER_READABLE : NOSNIFF
    if (set & LIMITED && rateLimiter) fixed = joinFixedHeaders(fixed, rateLimiter.policy)
    if (set & VERSIONED) fixed = joinFixedHeaders(fixed, versionHeaders)
    shared.push(fixed)
  }
  const sharedHeaders = (set: number) => shared[set] ?? NO_FIXED_HEADERS

  const route = (
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    headers: ResponseHeaders,
    set: number,
  ) => {
    if (path === API_V1_PREFIX || path.startsWith(`${API_V1_PREFIX}/`)) {
      if (lifecycle && clock() >= lifecycle.sunset) {
        sendRetired(request, response, lifecycle, publicBaseUrl, headers.list())
        return
      }
      headers.shared = sharedHeaders(set | VERSIONED)
    }
    let answered: boolean
    try {
      answered = fastPath(request, response, headers)
    } catch (error) {
      onError(error)
      if (!response.headersSent)
        sendProblem(
          request,
          response,
          buildProblem(
            publicBaseUrl,
            500,
            'The server failed to answer. The payload is static, so a retry with backoff is safe.',
            request.url ?? '/',
          ),
          {},
          headers.list(),
        )
      return
    }
    if (answered) return
    for (const list of [headers.shared.list, headers.own])
      for (let index = 0; index + 1 < list.length; index += 2)
        response.setHeader(list[index] ?? '', list[index + 1] ?? '')
    application(request, response)
  }

  const handle = (request: IncomingMessage, response: ServerResponse, id: string, url: string, path: string) => {
    const browserReadable = path !== '/mcp'
    let set = browserReadable ? BROWSER : 0
    const headers = new ResponseHeaders(['X-Request-Id', id], sharedHeaders(set))
    if (url.length > MAX_URL_LENGTH) {
      sendProblem(
        request,
        response,
        buildProblem(publicBaseUrl, 414, `The URL is longer than ${MAX_URL_LENGTH} bytes.`, url.slice(0, 200)),
        {},
        headers.list(),
      )
      return
    }
    if (browserReadable && isPreflight(request)) {
      headers.shared = PREFLIGHT
      headers.writeHead(response, 204)
      response.end()
      return
    }
    if (!rateLimiter || unlimitedPaths.has(path)) {
      route(request, response, path, headers, set)
      return
    }
    set |= LIMITED
    headers.shared = sharedHeaders(set)
    const allowed = rateLimiter.count(request, response, headers)
    if (allowed === true) {
      route(request, response, path, headers, set)
      return
    }
    if (allowed === false) return
    allowed.then(
      (answer) => {
        if (answer) route(request, response, path, headers, set)
      },
      () => route(request, response, path, headers, set), // the limiter reports its own failures and lets requests through
    )
  }

  return (request, response) => {
    const answered = {
      id: requestId(request),
      url: request.url ?? '/',
      startedAt: timed ? performance.now() : Number.NaN,
      socketBytesBefore: timed ? request.socket.bytesWritten : Number.NaN,
      completed: false,
    }
    const path = pathOf(answered.url)
    handle(request, response, answered.id, answered.url, path)
    if (!observe || unobservedPaths.has(path)) return
    // A response the fast path has already handed to the kernel in full is observed at once: what it
    // sent and how long it took are known now, and a 'close' listener per request costs more than the
    // rest of the observing. So is one whose head is written, for an observer that reads only the status
    // (metrics), since the status is final. Anything else waits for 'close': only then is it known
    // whether the bytes went out. (A response closes once: `on` spares the wrapper `once` makes.)
    if (timed) answered.completed = handedOver(response)
    if (timed ? answered.completed : response.headersSent) observe(request, response, answered)
    else
      response.on('close', () => {
        answered.completed = response.writableFinished
        observe(request, response, answered)
      })
  }
}

/**
 * Whether a response is ended and all of it is in the kernel's hands: nothing waits in the response
 * (a pipelined response queued behind another has no socket and holds its bytes) or in its socket's
 * buffer. That is what 'finish' reports, a tick later; Node sets `writableFinished` only then.
 */
function handedOver(response: ServerResponse): boolean {
  return response.writableEnded && response.socket !== null && response.writableLength === 0
}

function isPreflight(request: IncomingMessage): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}
