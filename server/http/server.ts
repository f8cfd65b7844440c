import {createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse} from 'node:http'
import {Server as NetServer, type AddressInfo} from 'node:net'
import type {Duplex} from 'node:stream'
import {answerOnSocket, bodyGate, capConnectionsPerClient, type BodyGate} from './connection-guard.ts'
import {FIXED_HEADS_WORK, FixedHeadResponse} from './response-headers.ts'
import {buildProblem, sendProblem, type ProblemStatus} from './problem.ts'

export interface ServerLimits {
  /** A client that has not sent all its headers by then gets 408 and is disconnected (slowloris). */
  headersTimeoutMs: number
  /** The whole request, body included: a body still arriving by then gets 408 and its connection is closed (the body timeout). */
  requestTimeoutMs: number
  /** How long an idle keep-alive connection is kept. */
  keepAliveTimeoutMs: number
  /** Request line and headers together; more gets 431. */
  maxHeaderBytes: number
  /** How often Node checks the two timeouts above (its default, 30 s, would let a slow client stay that much longer). */
  timeoutCheckIntervalMs: number
  /** Connections one peer address may hold at once (0: no cap); the next is answered 429 and closed. */
  maxConnectionsPerClient: number
  /** Request bodies being received at once, across all clients; the next is answered 503 before it is read. */
  maxBodiesInFlight: number
}

export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  timeoutCheckIntervalMs: 1_000,
  maxConnectionsPerClient: 128,
  maxBodiesInFlight: 256,
}

export interface HttpServerOptions {
  /** Peers that carry many clients (the proxies the operator trusts): not held to the per-client connection cap. */
  isTrustedProxy?: (address: string) => boolean
  /** Counts the request bodies being received (made here from `maxBodiesInFlight` when not given), so others can read the count. */
  bodies?: BodyGate
}

export interface CatalogHttpServer {
  server: Server
  /** Listens on `port` and `host` (an ephemeral port for 0); resolves with the address once listening. */
  listen: (options: {port: number; host: string; reusePort?: boolean}) => Promise<AddressInfo>
  /** Stops accepting, lets in-flight requests finish, ends keep-alive connections; forces them closed after `timeoutMs`. */
  shutDown: (timeoutMs: number) => Promise<void>
}

// The response a connection still owes: a malformed request pipelined after a valid one is refused
// only once the valid one has been answered. Set after each request, with no listener per request.
// A response already ended on its own socket owes nothing: its bytes are in the socket's queue,
// ahead of anything written later. Holding it until the connection's next request would keep every
// connection's last response alive for the young-generation collector to copy. A property of the
// socket rather than a WeakMap entry: a store instead of an ephemeron table's insert on every request.
const OWED: unique symbol = Symbol('the response the connection owes')
// A request answered before its body arrived (a 404 or 405 to a POST), until the connection's next
// request: a bodiless request never is one. Should the rest of its body fail, the answer is out.
const ANSWERED_EARLY: unique symbol = Symbol('a request answered before its body arrived')
declare module 'node:stream' {
  interface Duplex {
    [OWED]?: ServerResponse
    [ANSWERED_EARLY]?: IncomingMessage
  }
}

/** An HTTP server with bounded timeouts and sizes whose every refusal is application/problem+json. */
export function createHttpServer(
  listener: RequestListener,
  publicBaseUrl: string,
  limits: ServerLimits = DEFAULT_LIMITS,
  options: HttpServerOptions = {},
): CatalogHttpServer {
  let closing = false
  const bodies = options.bodies ?? bodyGate(limits.maxBodiesInFlight)
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    // While shutting down, every response ends its connection, so no client reuses one that is about to close.
    if (closing) response.setHeader('Connection', 'close')
    const refusal = refuseTarget(request)
    if (refusal) refuseRequest(request, response, publicBaseUrl, 400, refusal)
    else if (!bodies.admit(request, response)) {
      response.setHeader('Retry-After', '1')
      refuseRequest(
        request,
        response,
        publicBaseUrl,
        503,
        `The server is receiving ${bodies.max} request bodies already; retry in a second.`,
      )
    } else listener(request, response)
  }
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
      requireHostHeader: false, // checked below, to answer with a problem instead of an empty 400
      // A request without Content-Length or Transfer-Encoding has no body (RFC 9112, 6.3): Node then
      // skips its body stream's life cycle ('data', 'end', 'close'), a few percent of a GET's CPU.
      // Nothing here waits on a bodiless
      // request's stream events; the body gate counts only requests that declare a body.
      optimizeEmptyRequests: true,
      ...(FIXED_HEADS_WORK ? {ServerResponse: FixedHeadResponse} : {}),
    },
    (request, response) => {
      answer(request, response)
      const ended = response.writableEnded && response.socket !== null
      request.socket[OWED] = ended ? undefined : response
      request.socket[ANSWERED_EARLY] = ended && !request.complete ? request : undefined
    },
  )
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    refuseRequest(
      request,
      response,
      publicBaseUrl,
      417,
      `The server meets no expectation but 100-continue; got "${String(request.headers.expect).slice(0, 100)}".`,
    ),
  )
  // CONNECT asks for a tunnel: Node hands it to this listener, and without one closes the
  // connection unanswered. It is refused as any other method the server does not serve.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) =>
    answerOnSocket(
      socket,
      publicBaseUrl,
      405,
      'The server opens no tunnels: CONNECT is not supported. Retry as GET or HEAD.',
      'Allow: GET, HEAD\r\n',
    ),
  )
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const pending = socket[OWED]
    // A request's body failed (aborted, malformed, too slow) after its response began (an event
    // stream) or was sent: a refusal now would be a second response, or bytes in the middle of the
    // first. The connection goes, as Node's own handler does once headers are sent.
    const early = socket[ANSWERED_EARLY]
    if ((early && !early.complete) || (pending?.headersSent && !pending.req.complete)) return void socket.destroy()
    // The pending response's own body failed: that response will never be written, so the refusal
    // is the answer, at once.
    if (!pending || pending.writableFinished || !pending.req.complete)
      return refuse(error, socket, publicBaseUrl, limits)
    // A request pipelined after one still being answered: refused once that answer is out, or the
    // connection goes if that answer never completes.
    pending.once('finish', () => refuse(error, socket, publicBaseUrl, limits))
    pending.once('close', () => pending.writableFinished || socket.destroy())
  })
  capConnectionsPerClient(server, {
    max: limits.maxConnectionsPerClient,
    exempt: options.isTrustedProxy ?? (() => false),
    publicBaseUrl,
  })

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
  const listen = (options: {port: number; host: string; reusePort?: boolean}) =>
    new Promise<AddressInfo>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options, () => {
        server.off('error', reject)
        const address = server.address()
        if (address === null || typeof address === 'string') return reject(new Error('expected a TCP address'))
        resolve(address)
      })
    })
  return {server, listen, shutDown}
}

// RFC 3986 authority as a Host header carries it: an IP literal or a registered name, and a port.
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::\d{0,5})?$/
// Any scheme: `ws://x/api/v1/…` names the same path as `http://x/api/v1/…`, and must meet the same rules (the sunset's 410).
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * RFC 9112 3.2: HTTP/1.1 requests carry exactly one valid Host, and an absolute-form target
 * (`GET http://host/path`) is served as its path, so every rule keyed on the path applies to it.
 * Returns why the request is refused, if it is.
 */
function refuseTarget(request: IncomingMessage): string | undefined {
  const host = request.headers.host
  if (host === undefined && request.httpVersion === '1.1')
    return 'HTTP/1.1 requests must carry a Host header (RFC 9112, section 3.2).'
  if (host !== undefined && host !== lastValidHost) {
    if (!HOST.test(host)) return 'The Host header is not a host name or address with an optional port.'
    lastValidHost = host
  }
  if (hostLines(request.rawHeaders) > 1) return 'The request has more than one Host header.'
  const target = request.url ?? '/'
  if (target.startsWith('/') || !ABSOLUTE_FORM.test(target)) return undefined // origin-form, almost every request
  if (!URL.canParse(target)) return 'The request target is not a valid absolute URL.'
  const url = new URL(target)
  request.url = `${url.pathname}${url.search}`
  return undefined
}

// Almost every request names the same host: checking it once is enough.
let lastValidHost = ''

/** How many Host lines the request has (Node keeps only the first in `headers`). */
function hostLines(rawHeaders: readonly string[]): number {
  let lines = 0
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]
    if (name?.length === 4 && name.toLowerCase() === 'host') lines += 1
  }
  return lines
}

function refuseRequest(
  request: IncomingMessage,
  response: ServerResponse,
  publicBaseUrl: string,
  status: 400 | 417 | 503,
  detail: string,
): void {
  response.shouldKeepAlive = false
  sendProblem(request, response, buildProblem(publicBaseUrl, status, detail, '/'), {
    'X-Content-Type-Options': 'nosniff',
  })
}

/** Node's own answers to unparseable, oversized or slow requests are plain text; these are problems. */
function refuse(error: NodeJS.ErrnoException, socket: Duplex, publicBaseUrl: string, limits: ServerLimits): void {
  if (error.code === 'ECONNRESET') return void socket.destroy()
  const [status, detail] = describeClientError(error.code, limits)
  answerOnSocket(socket, publicBaseUrl, status, detail)
}

function describeClientError(code: string | undefined, limits: ServerLimits): [ProblemStatus, string] {
  if (code === 'HPE_HEADER_OVERFLOW')
    return [431, `The request line and headers are larger than the server reads (${limits.maxHeaderBytes} bytes).`]
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request was not received in time.']
  return [400, 'The request is not valid HTTP/1.1.']
}
