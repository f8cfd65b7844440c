import {randomBytes} from 'node:crypto'
import type {IncomingMessage} from 'node:http'

/** A request id a CDN or proxy already gave the request is kept, if it looks like one. */
const FORWARDED_ID = /^[\w.:@/+=-]{1,128}$/

/**
 * Request ids: an incoming `X-Request-Id` when it looks like one, otherwise this process's random
 * prefix and a sequence number (`Xq3v9LkA-1a2b`): unique across replicas and restarts, and made
 * with an integer increment instead of a UUID per request.
 */
export function requestIdSource(): (request: IncomingMessage) => string {
  const prefix = randomBytes(6).toString('base64url')
  let sequence = 0
  return (request) => {
    const forwarded = request.headers['x-request-id']
    if (typeof forwarded === 'string' && FORWARDED_ID.test(forwarded)) return forwarded
    sequence += 1
    return `${prefix}-${sequence.toString(36)}`
  }
}
