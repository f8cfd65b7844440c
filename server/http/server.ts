import {createServer, STATUS_CODES, type RequestListener, type Server} from 'node:http'
import {Server as NetServer} from 'node:net'
import type {Duplex} from 'node:stream'
import {buildProblem, PROBLEM_CONTENT_TYPE, type ProblemStatus} from './problem.ts'

export interface ServerLimits {
  /** A client that has not sent all its headers by then gets 408 and is disconnected (slowloris). */
  headersTimeoutMs: number
  /** The whole request, body included. */
  requestTimeoutMs: number
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs: number
  /** Request line and headers together; more gets 431. */
  maxHeaderBytes: number
  /** How often Node checks the two timeouts above (its default, 30 s, would let a slow client stay that much longer). */
  timeoutCheckIntervalMs: number
}

export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  timeoutCheckIntervalMs: 1_000,
}

export interface CatalogHttpServer {
  server: Server
  /** Stops accepting, lets in-flight requests finish, ends keep-alive connections; forces them closed after `timeoutMs`. */
  shutDown(timeoutMs: number): Promise<void>
}

/** An HTTP server with bounded timeouts and sizes whose every refusal is application/problem+json. */
export function createHttpServer(listener: RequestListener, publicBaseUrl: string, limits: ServerLimits = DEFAULT_LIMITS): CatalogHttpServer {
  let closing = false
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
    },
    (request, response) => {
      // While shutting down, every response ends its connection, so no client reuses one that is about to close.
      if (closing) response.setHeader('Connection', 'close')
      listener(request, response)
    },
  )
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => refuse(error, socket, publicBaseUrl, limits))

  const shutDown = (timeoutMs: number) =>
    new Promise<void>((resolve) => {
      closing = true
      const force = setTimeout(() => server.closeAllConnections(), timeoutMs)
      // net.Server's close: stop accepting, then wait for every connection to end. (http.Server's
      // close also drops idle keep-alive connections at once, racing a client that is sending its
      // next request on one.) A busy connection ends after its next response (Connection: close);
      // an idle one when its keep-alive timeout, which clients were told in `Keep-Alive`, runs out.
      NetServer.prototype.close.call(server, () => {
        clearTimeout(force)
        resolve()
      })
    })
  return {server, shutDown}
}

/** Node's own answers to unparseable, oversized or slow requests are plain text; these are problems. */
function refuse(error: NodeJS.ErrnoException, socket: Duplex, publicBaseUrl: string, limits: ServerLimits): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy()
    return
  }
  const [status, detail] = describeClientError(error.code, limits)
  const body = JSON.stringify(buildProblem(publicBaseUrl, status, detail, '/'))
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  )
}

function describeClientError(code: string | undefined, limits: ServerLimits): [ProblemStatus, string] {
  if (code === 'HPE_HEADER_OVERFLOW') return [431, `The request line and headers are larger than the server reads (${limits.maxHeaderBytes} bytes).`]
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request was not received in time.']
  return [400, 'The request is not valid HTTP/1.1.']
}
