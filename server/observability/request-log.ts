import {randomUUID} from 'node:crypto'
import type {IncomingMessage} from 'node:http'
import type {Logger} from 'pino'
import {pinoHttp} from 'pino-http'
import type {RequestObserver} from '../http/request-listener.ts'

/** A request id a CDN or proxy already gave the request is kept, if it looks like one. */
const FORWARDED_ID = /^[\w.:@/+=-]{1,128}$/

/**
 * Structured request logs (pino-http): one line per response with the request id, method, URL,
 * client address (the one the rate limiter counts), status and duration. The id comes from an
 * incoming `X-Request-Id` or is made up, and is echoed in the response's `X-Request-Id`, so a
 * client's report can be matched with the log. Server faults log at `error`, the rest at `info`.
 */
export function requestLogObserver(logger: Logger, clientAddress: (request: IncomingMessage) => string): RequestObserver {
  const log = pinoHttp({
    logger,
    genReqId(request) {
      const forwarded = request.headers['x-request-id']
      return typeof forwarded === 'string' && FORWARDED_ID.test(forwarded) ? forwarded : randomUUID()
    },
    customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : 'info'),
    customProps: (request) => ({client: clientAddress(request)}),
    serializers: {
      req: (request: {id: unknown; method: string; url: string; headers: Record<string, string | undefined>}) => ({
        id: request.id,
        method: request.method,
        url: request.url,
        userAgent: request.headers['user-agent'],
      }),
      // Only the status: the fast path writes its headers straight to the socket, unrecorded.
      res: (response: {statusCode: number}) => ({statusCode: response.statusCode}),
    },
  })
  return (request, response, headers) => {
    log(request, response)
    headers.push('X-Request-Id', String(request.id))
  }
}
