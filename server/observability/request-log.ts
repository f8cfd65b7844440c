import {randomUUID} from 'node:crypto'
import type {IncomingMessage} from 'node:http'
import type {Logger} from 'pino'
import {pinoHttp} from 'pino-http'
import type {RequestObserver} from '../http/request-listener.ts'

/** A request id a CDN or proxy already gave the request is kept, if it looks like one. */
const FORWARDED_ID = /^[\w.:@/+=-]{1,128}$/
// Fields a client chooses are cut, so no request writes more than about a kilobyte of log.
const MAX_LOGGED_URL = 512
const MAX_LOGGED_USER_AGENT = 256
const RATE_LIMIT_SUMMARY_MS = 60_000
const MAX_SUMMARISED_CLIENTS = 10_000

/**
 * Structured request logs (pino-http): one line per response with the request id, method, URL,
 * client address (the one the rate limiter counts), status and duration. The id comes from an
 * incoming `X-Request-Id` or is made up, and is echoed in the response's `X-Request-Id`, so a
 * client's report can be matched with the log. Server faults log at `error`, the rest at `info`,
 * except 429s: a client's first in each minute is logged, the rest are summarised.
 */
export function requestLogObserver(logger: Logger, clientAddress: (request: IncomingMessage) => string, clock: () => Date = () => new Date()): RequestObserver {
  const refusals = rateLimitSummary(logger, () => clock().getTime())
  const log = pinoHttp({
    logger,
    genReqId(request) {
      const forwarded = request.headers['x-request-id']
      return typeof forwarded === 'string' && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID()
    },
    customLogLevel(request, response, error) {
      if (error || response.statusCode >= 500) return 'error'
      if (response.statusCode === 429) return refusals.isFirst(clientAddress(request)) ? 'info' : 'silent'
      return 'info'
    },
    customProps: (request) => ({client: clientAddress(request)}),
    serializers: {
      req: (request: {id: unknown; method: string; url: string; headers: Record<string, string | undefined>}) => ({
        id: request.id,
        method: request.method,
        url: cut(request.url, MAX_LOGGED_URL),
        userAgent: cut(request.headers['user-agent'], MAX_LOGGED_USER_AGENT),
      }),
      // Only the status: the fast path writes its headers straight to the socket, unrecorded.
      res: (response: {statusCode: number}) => ({statusCode: response.statusCode}),
    },
  })
  return (request, response, headers) => {
    refusals.summariseIfDue()
    log(request, response)
    headers.push('X-Request-Id', String(request.id))
  }
}

function cut(value: string | undefined, maxLength: number): string | undefined {
  return value !== undefined && value.length > maxLength ? `${value.slice(0, maxLength)}… (${value.length} characters)` : value
}

/**
 * Counts 429s per client over a minute. A client's first is logged as usual; the rest become one
 * summary line when the minute is over (written with the next request after it), so a client
 * hammering the limit writes two lines a minute, not one per request.
 */
function rateLimitSummary(logger: Logger, now: () => number) {
  const refusedByClient = new Map<string, number>()
  let refused = 0
  let untracked = 0
  let windowStartedAt = now()
  return {
    isFirst(client: string): boolean {
      refused += 1
      const earlier = refusedByClient.get(client)
      if (earlier !== undefined) {
        refusedByClient.set(client, earlier + 1)
        return false
      }
      // Past the bound, clients are only counted: memory stays bounded whatever addresses arrive.
      if (refusedByClient.size >= MAX_SUMMARISED_CLIENTS) {
        untracked += 1
        return false
      }
      refusedByClient.set(client, 1)
      return true
    },
    summariseIfDue() {
      if (now() - windowStartedAt < RATE_LIMIT_SUMMARY_MS) return
      if (refused > refusedByClient.size) {
        const top = [...refusedByClient].sort((a, b) => b[1] - a[1]).slice(0, 10)
        logger.warn(
          {rateLimited: {refused, clients: refusedByClient.size, untracked, top: top.map(([client, count]) => ({client, refused: count}))}},
          `${refused} requests from ${refusedByClient.size} clients were refused with 429 in the last ${Math.round((now() - windowStartedAt) / 1000)} s`,
        )
      }
      refusedByClient.clear()
      refused = 0
      untracked = 0
      windowStartedAt = now()
    },
  }
}
