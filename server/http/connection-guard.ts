import {STATUS_CODES, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {Socket} from 'node:net'
import type {Duplex} from 'node:stream'
import {buildProblem, type ProblemStatus} from './problem.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'

/**
 * How long a refused connection is still read (and what it sends dropped) after its answer is
 * written. Closing a socket with unread bytes makes the kernel send a reset, which can destroy the
 * answer before the client reads it; nginx's lingering close solves the same problem.
 */
const LINGER_MS = 1000

/**
 * Writes a whole problem response on a socket no `ServerResponse` will answer (Node's own refusals,
 * connections over a cap) and closes it. Used where Express and the fast path never see the request.
 */
export function answerOnSocket(
  socket: Duplex,
  publicBaseUrl: string,
  status: ProblemStatus,
  detail: string,
  headers = '',
): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = JSON.stringify(buildProblem(publicBaseUrl, status, detail, '/'))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: ${MEDIA_TYPES.problem}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n${headers}Connection: close\r\n\r\n${body}`,
  )
  lingerThenDestroy(socket)
}

/** Reads and drops whatever the client still sends, for a moment, then lets the socket go. */
function lingerThenDestroy(socket: Duplex): void {
  socket.on('data', () => undefined)
  socket.resume()
  const timer = setTimeout(() => socket.destroy(), LINGER_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
}

/**
 * At most `max` connections from one peer address at a time; the next is answered 429 and closed,
 * so one client cannot take the descriptors every other client needs. `exempt` names peers that
 * carry many clients (the proxies the operator trusts). Memory: one entry per address that holds
 * a connection, so bounded by the connections themselves.
 */
export function capConnectionsPerClient(
  server: Server,
  options: {max: number; exempt: (address: string) => boolean; publicBaseUrl: string},
): void {
  if (options.max <= 0) return
  const held = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || options.exempt(address)) return
    const count = held.get(address) ?? 0
    if (count >= options.max) {
      answerOnSocket(
        socket,
        options.publicBaseUrl,
        429,
        `This address already holds ${options.max} connections to the server; reuse them (keep-alive) or close some.`,
        'Retry-After: 1\r\n',
      )
      return
    }
    held.set(address, count + 1)
    socket.once('close', () => {
      const left = (held.get(address) ?? 1) - 1
      if (left > 0) held.set(address, left)
      else held.delete(address)
    })
  })
}

/** Admits request bodies up to a bound and says how many it holds. */
export interface BodyGate {
  /** Counts the request's body, if it has one and there is room; false when it is refused. */
  admit(request: IncomingMessage, response: ServerResponse): boolean
  /** Bodies counted now. */
  readonly inFlight: () => number
  /** The most it counts at once. */
  readonly max: number
}

/**
 * Counts request bodies being received, across all connections: each holds a socket and a buffer
 * until it ends, so past `max` a new one is refused before a byte of it is read. A body leaves the
 * count once, at the first of: read to its end, its response sent (Node then discards the rest or
 * closes), its socket closed. A request answered before its body was read emits neither 'end' nor
 * 'close' when its client goes mid-body, so the response and the socket, which always close, count.
 */
export function bodyGate(max: number): BodyGate {
  let inFlight = 0
  return {
    admit(request, response) {
      if (!hasBody(request)) return true
      if (inFlight >= max) return false
      inFlight += 1
      const {socket} = request
      let counted = true
      // Guarded as well as unsubscribed: an event being emitted still calls the listeners it had when it began.
      const release = () => {
        if (!counted) return
        counted = false
        inFlight -= 1
        request.off('end', release)
        response.off('close', release)
        socket.off('close', release)
      }
      request.once('end', release)
      response.once('close', release)
      // A keep-alive socket carries many requests: each one's listener goes with its release.
      socket.once('close', release)
      return true
    },
    inFlight: () => inFlight,
    max,
  }
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length']
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}
