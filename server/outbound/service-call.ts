import {request as requestHttp, type IncomingHttpHeaders, type OutgoingHttpHeaders} from 'node:http'
import {request as requestHttps} from 'node:https'

// Calls to other services (a WebSub hub, Podcast Index, a CDN's purge API) whose answers only say
// whether the call worked. A service that answers slowly, never, or with an endless body must cost
// this server a few KB and a few seconds, not its memory: its answer is read up to a bound and
// then the connection is dropped.

/** What another service answered: its status, its headers and the start of its body. */
export interface ServiceAnswer {
  status: number
  headers: IncomingHttpHeaders
  /** The body's first `maxAnswerBytes` bytes as UTF-8, enough for an error message; the rest is never read. */
  text: string
}

export interface CallBounds {
  /** Until the TCP connection is open. */
  connectTimeoutMs: number
  /** From the call to the end of what is read of the answer. */
  timeoutMs: number
  maxAnswerBytes: number
}

const DEFAULT_CALL_BOUNDS: CallBounds = {connectTimeoutMs: 3000, timeoutMs: 10_000, maxAnswerBytes: 8 * 1024}

export interface ServiceRequest {
  method: string
  headers?: OutgoingHttpHeaders
  body?: string
}

/** Whether the answer is a 2xx. */
export const succeeded = (answer: ServiceAnswer): boolean => answer.status >= 200 && answer.status < 300

/** Sends `request` to `target` within `bounds`; rejects when it cannot be sent or answered in time. */
export function callService(
  target: string | URL,
  request: ServiceRequest,
  bounds: Partial<CallBounds> = {},
): Promise<ServiceAnswer> {
  const {connectTimeoutMs, timeoutMs, maxAnswerBytes} = {...DEFAULT_CALL_BOUNDS, ...bounds}
  const url = new URL(target)
  const send = url.protocol === 'https:' ? requestHttps : url.protocol === 'http:' ? requestHttp : undefined
  if (!send) return Promise.reject(new Error(`${url.protocol} is not http: or https:`))
  return new Promise((resolve, reject) => {
    const call = send(url, {method: request.method, headers: request.headers})
    const giveUp = (what: string, ms: number) =>
      setTimeout(() => call.destroy(new Error(`${what} ${url.host} within ${ms} ms`)), ms).unref()
    const connecting = giveUp('no connection to', connectTimeoutMs)
    const deadline = giveUp('no whole answer from', timeoutMs)
    call.once('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => clearTimeout(connecting))
      else clearTimeout(connecting) // a kept-alive connection
    })
    call.once('close', () => {
      clearTimeout(connecting)
      clearTimeout(deadline)
    })
    call.on('error', reject)
    call.once('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      const answer = () => ({
        status: response.statusCode ?? 0,
        headers: response.headers,
        text: Buffer.concat(chunks).subarray(0, maxAnswerBytes).toString('utf8'),
      })
      response.on('error', reject)
      response.on('data', (chunk: Buffer) => {
        if (size >= maxAnswerBytes) return
        chunks.push(chunk)
        size += chunk.length
        if (size < maxAnswerBytes) return
        resolve(answer())
        call.destroy()
      })
      response.once('end', () => resolve(answer()))
    })
    call.end(request.body)
  })
}
