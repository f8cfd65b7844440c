import type {IncomingMessage, ServerResponse} from 'node:http'
import type {IncrementResponse} from 'express-rate-limit'
import {fixedHeaders, type FixedHeaders, type ResponseHeaders} from './response-headers.ts'
import {buildProblem, sendProblem} from './problem.ts'

/**
 * The part of express-rate-limit's `Store` interface the limiter uses: its MemoryStore and
 * rate-limit-redis's RedisStore both fit. (express-rate-limit's middleware is not used on the
 * request path: it cost a large share of the origin's throughput, and it cannot write the draft's `q`/`w` policy header.)
 */
export interface CounterStore {
  init?(options: {windowMs: number}): void
  increment(key: string): Promise<IncrementResponse> | IncrementResponse
  shutdown?(): Promise<void> | void
}

export interface RateLimiterOptions {
  quota: number
  windowSeconds: number
  store: CounterStore
  /** The client's key: its address, per /56 for IPv6. */
  keyOf: (request: IncomingMessage) => string
  publicBaseUrl: string
  /** A store that fails lets the request through (a read-only public API stays up); a shared store falls back to a local count first (failover-counter.ts). */
  onStoreError: (error: unknown) => void
  policyName?: string
}

export interface RateLimiter {
  /** `RateLimit-Policy`, the same on every response it counts. */
  readonly policy: FixedHeaders
  /**
   * Counts the request and adds its `RateLimit` header to the response's `headers` (whose shared
   * lines carry the policy). True when the request may go on; otherwise it has answered 429
   * itself. A store that answers synchronously (the in-memory one) gets a synchronous answer, so
   * the request takes no promise hop; a remote store's answer is a promise.
   */
  count(request: IncomingMessage, response: ServerResponse, headers: ResponseHeaders): boolean | Promise<boolean>
}

/**
 * `quota` requests per `windowSeconds` per client, advertised on every response in the IETF
 * draft's structured headers (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "default";q=600;w=60` and `RateLimit: "default";r=599;t=60`.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const {quota, windowSeconds, store, keyOf, publicBaseUrl, onStoreError, policyName = 'default'} = options
  store.init?.({windowMs: windowSeconds * 1000})
  const policy = fixedHeaders(['RateLimit-Policy', `"${policyName}";q=${quota};w=${windowSeconds}`])
  const storeFailed = (error: unknown) => {
    onStoreError(error)
    return true
  }
  const decide = (
    request: IncomingMessage,
    response: ServerResponse,
    headers: ResponseHeaders,
    counted: IncrementResponse,
  ): boolean => {
    const secondsLeft = counted.resetTime
      ? Math.max(0, Math.ceil((counted.resetTime.getTime() - Date.now()) / 1000))
      : windowSeconds
    headers.add('RateLimit', `"${policyName}";r=${Math.max(0, quota - counted.totalHits)};t=${secondsLeft}`)
    if (counted.totalHits <= quota) return true
    const retryAfter = Math.max(1, secondsLeft)
    const detail = `More than ${quota} requests in ${windowSeconds} seconds from one client. Retry after ${retryAfter} seconds; the CDN serves cached copies meanwhile.`
    sendProblem(
      request,
      response,
      buildProblem(publicBaseUrl, 429, detail, request.url ?? '/'),
      {'Retry-After': String(retryAfter)},
      headers.list(),
    )
    return false
  }
  const count = (request: IncomingMessage, response: ServerResponse, headers: ResponseHeaders) => {
    let counted: Promise<IncrementResponse> | IncrementResponse
    try {
      counted = store.increment(keyOf(request))
    } catch (error) {
      return storeFailed(error)
    }
    if (!(counted instanceof Promise)) return decide(request, response, headers, counted)
    return counted.then((answer) => decide(request, response, headers, answer), storeFailed)
  }
  return {policy, count}
}
