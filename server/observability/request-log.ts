import type {IncomingMessage, ServerResponse} from 'node:http'
import type {Logger} from 'pino'
import type {RequestObserver} from '../http/request-listener.ts'
import {lineDestinationOf, SERVICE} from './logger.ts'
import type {Clock} from '../clock.ts'

// Fields a client chooses are cut, so no request writes more than about a kilobyte of log.
const MAX_LOGGED_URL = 512
const MAX_LOGGED_USER_AGENT = 256
const RATE_LIMIT_SUMMARY_MS = 60_000
const MAX_SUMMARISED_CLIENTS = 10_000

/**
 * Request logs: at `info`, one line per response with the request id (echoed to the client in
 * `X-Request-Id`), method, URL, user agent, client address (the one the rate limiter counts),
 * status, body bytes sent and duration, observed once the response is done with; "request aborted
 * by the client" when the connection closed before the whole response was written. Server faults
 * at `error`. 429s are the exception: a client's first in each minute is logged, the rest
 * summarised. Above `info` nothing is done per request (faults are logged where they happen).
 *
 * The common line is formatted here into one string, the same JSON pino would write, and goes
 * straight to the logger's destination: no object or serialiser per request, the cost of an
 * access log. Strings a client chooses are escaped by JSON.stringify.
 */
export function requestLogObserver(
  logger: Logger,
  clientAddress: (request: IncomingMessage) => string,
  clock: Clock = () => new Date(),
): RequestObserver {
  const refusals = rateLimitSummary(logger, () => clock().getTime())
  const lines = lineDestinationOf(logger)
  const infoPrefix = `{"level":${logger.levels.values.info ?? 30}`
  // The level is the process's for its life (catalog-server.ts does not even install this above info).
  if (!logger.isLevelEnabled('info')) return () => undefined
  return (request, response, answered) => {
    refusals.summariseIfDue()
    const statusCode = response.statusCode
    const client = clientAddress(request)
    if (statusCode === 429 && !refusals.isFirst(client)) return
    const url = cut(answered.url, MAX_LOGGED_URL)
    const userAgent = cut(request.headers['user-agent'], MAX_LOGGED_USER_AGENT)
    const now = performance.now()
    const responseTime = Math.round(now - answered.startedAt)
    const bytes = bodyBytesSent(request, response, answered.socketBytesBefore)
    const msg = answered.completed ? 'request completed' : 'request aborted by the client'
    if (statusCode >= 500 || !lines) {
      const line = {
        req: {id: answered.id, method: request.method, url, userAgent},
        client,
        res: {statusCode},
        responseTime,
        bytes,
      }
      if (statusCode >= 500) logger.error(line, 'request failed')
      else logger.info(line, msg)
      return
    }
    // Request ids are the listener's own or match `[\w.:@/+=-]` (request-id.ts), and Node's parser
    // admits only registered methods: neither holds a character JSON escapes. The rest can (behind a
    // trusted proxy the client address is whatever X-Forwarded-For says).
    lines.write(
      `${infoPrefix}${lines.timeField(now)},"service":"${SERVICE}","req":{"id":"${answered.id}","method":"${request.method ?? ''}","url":${JSON.stringify(url)}${
        userAgent === undefined ? '' : `,"userAgent":${JSON.stringify(userAgent)}`
      }},"client":${JSON.stringify(client)},"res":{"statusCode":${statusCode}},"responseTime":${responseTime},"bytes":${bytes},"msg":"${msg}"}\n`,
    )
  }
}

/**
 * Body bytes handed to the connection for this response: what its socket wrote since the request
 * arrived, less the response head. (A pipelined request that arrived while the previous response
 * was still being written counts that response's tail too; browsers and CDNs do not pipeline.)
 */
function bodyBytesSent(request: IncomingMessage, response: ServerResponse, socketBytesBefore: number): number {
  // `_header` is the head as written, a latin1 string: undocumented, but what morgan and on-headers read too.
  const head: unknown = Reflect.get(response, '_header')
  return Math.max(0, request.socket.bytesWritten - socketBytesBefore - (typeof head === 'string' ? head.length : 0))
}

function cut(value: string | undefined, maxLength: number): string | undefined {
  return value !== undefined && value.length > maxLength
    ? `${value.slice(0, maxLength)}… (${value.length} characters)`
    : value
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
  let windowStartedAt = 0
  return {
    isFirst(client: string): boolean {
      // The minute starts with its first refusal: a request that is not refused reads no clock.
      if (refused === 0) windowStartedAt = now()
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
      if (refused === 0 || now() - windowStartedAt < RATE_LIMIT_SUMMARY_MS) return
      if (refused > refusedByClient.size) {
        const top = [...refusedByClient].sort((a, b) => b[1] - a[1]).slice(0, 10)
        logger.warn(
          {
            rateLimited: {
              refused,
              clients: refusedByClient.size,
              untracked,
              top: top.map(([client, count]) => ({client, refused: count})),
            },
          },
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
