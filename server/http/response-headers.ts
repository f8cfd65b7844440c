import {
  IncomingMessage,
  ServerResponse,
  validateHeaderName,
  validateHeaderValue,
  type OutgoingHttpHeaders,
} from 'node:http'
import {Socket} from 'node:net'

// The headers a response carries besides its representation's, and how they reach the head fast.
//
// `writeHead` checks every name and value against the HTTP grammar and joins the lines on every
// response, which a CPU profile put at about a tenth of a pre-built response's cost on one core.
// So lines many responses share (a variant's validators, CORS, the rate-limit policy) are checked
// and joined once (`FixedHeaders`); a response's own (request id, RateLimit, Catalog-Version) are
// values this server makes so that they cannot break the grammar (an id that matched a pattern,
// numbers, a version hash), and are joined unchecked. The server's response class
// (`FixedHeadResponse`) puts both into the head as they are; Node still writes the status line,
// Date, Connection, Keep-Alive and the framing (Content-Length, which goes through `writeHead`'s
// own list). Any other response (Express's, whose prototype Express replaces) takes it all as one
// list, checked by Node.

declare module 'node:http' {
  interface OutgoingMessage {
    /**
     * Node's own step of `writeHead`: the status line, then the header list validated and joined
     * into the head. Not in Node's documentation, but every version since 0.x has it with this
     * signature, and `writeHead` (the documented part) always calls it; a test over real HTTP
     * guards it on the Node version the project installs.
     */
    _storeHeader(firstLine: string, headers: OutgoingHttpHeaders | readonly string[] | null | undefined): void
  }
}

/** Header lines validated and joined once; `list` is the same as a flat name, value list. */
export interface FixedHeaders {
  readonly list: readonly string[]
  readonly lines: string
}

// Headers Node reads while it joins the head (framing, connection, Date): they must go through
// `writeHead`'s own list.
const READ_BY_NODE = new Set([
  'connection',
  'content-length',
  'transfer-encoding',
  'date',
  'expect',
  'trailer',
  'keep-alive',
])

/** Validates a flat name, value list as `writeHead` would, once; throws as it would. */
export function fixedHeaders(list: readonly string[]): FixedHeaders {
  if (list.length % 2 !== 0) throw new Error('A header list pairs every name with a value.')
  let lines = ''
  for (let index = 0; index < list.length; index += 2) {
    const name = list[index] ?? ''
    const value = list[index + 1] ?? ''
    validateHeaderName(name)
    validateHeaderValue(name, value)
    if (READ_BY_NODE.has(name.toLowerCase()))
      throw new Error(`${name} is read by Node as it writes the head, so it cannot be a fixed header.`)
    lines += `${name}: ${value}\r\n`
  }
  return {list, lines}
}

export const NO_FIXED_HEADERS = fixedHeaders([])

export function joinFixedHeaders(first: FixedHeaders, second: FixedHeaders): FixedHeaders {
  return {list: [...first.list, ...second.list], lines: first.lines + second.lines}
}

const NO_FRAMING: string[] = []

/**
 * One response's headers on their way through the server: the lines it shares with many others
 * (`shared`, which the request listener sets as it learns which apply: CORS, the rate-limit
 * policy, the version's lifecycle) and its own (`own`, added by whoever makes them). Made per
 * request, and written by whoever answers it.
 */
export class ResponseHeaders {
  shared: FixedHeaders
  /** A flat name, value list; values this server makes (see above), never a client's. */
  readonly own: string[]

  constructor(own: string[] = [], shared: FixedHeaders = NO_FIXED_HEADERS) {
    this.own = own
    this.shared = shared
  }

  add(name: string, value: string): void {
    this.own.push(name, value)
  }

  /** Shared, then own, as one list: for a response that Node checks as usual (a problem, Express). */
  list(): string[] {
    return [...this.shared.list, ...this.own]
  }

  /** `writeHead(statusCode, first + shared + own + framing)`; `framing` (Content-Length) is read by Node. */
  writeHead(
    response: ServerResponse,
    statusCode: number,
    first: FixedHeaders = NO_FIXED_HEADERS,
    framing: string[] = NO_FRAMING,
  ): void {
    if (response instanceof FixedHeadResponse)
      response.writeHeadWithFixed(statusCode, first, this.shared, this.own, framing)
    else response.writeHead(statusCode, [...first.list, ...this.shared.list, ...this.own, ...framing])
  }
}

// The fixed lines of the `writeHead` under way: set just before it and taken by `_storeHeader`
// within it, on the one JavaScript thread (cheaper than a field on each response).
let pendingLines = ''

/**
 * The server's response class (createServer's documented `ServerResponse` option): `writeHead`
 * as usual, except that lines already validated can go into the head as they are.
 */
export class FixedHeadResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  // Spelt out: a default constructor forwards its arguments as a rest list, which nearly doubles
  // the cost of constructing each response.
  // eslint-disable-next-line @typescript-eslint/no-useless-constructor -- slower without it (bench/results/http.md)
  constructor(request: Request, options?: {highWaterMark?: number; rejectNonStandardBodyWrites?: boolean}) {
    // @ts-expect-error Node passes the server's options too; @types/node declares only the request.
    super(request, options)
  }

  override _storeHeader(firstLine: string, headers: OutgoingHttpHeaders | readonly string[] | null | undefined): void {
    const lines = pendingLines
    pendingLines = ''
    super._storeHeader(lines === '' ? firstLine : firstLine + lines, headers)
  }

  writeHeadWithFixed(
    statusCode: number,
    first: FixedHeaders,
    second: FixedHeaders,
    own: readonly string[],
    framing: string[],
  ): void {
    let lines = first.lines + second.lines
    for (let index = 0; index + 1 < own.length; index += 2) lines += `${own[index]}: ${own[index + 1]}\r\n`
    pendingLines = lines
    try {
      this.writeHead(statusCode, framing)
    } finally {
      pendingLines = '' // writeHead threw before it joined the head
    }
  }
}

const PROBE = fixedHeaders(['X-Fixed-Probe', '1'])

/**
 * Whether `Response` puts fixed lines into the head on the Node that runs this: it writes one head
 * for a socket that never connects and reads it back from `_header` (the head as Node will send
 * it; request-log.ts and morgan read it too). When it does not, the server keeps Node's own
 * ServerResponse and sends every header as a list: a Node whose `writeHead` changed inside costs
 * speed, never headers.
 */
export function fixedHeadsWork(
  Response: new (request: IncomingMessage) => FixedHeadResponse = FixedHeadResponse,
): boolean {
  try {
    const response = new Response(new IncomingMessage(new Socket()))
    new ResponseHeaders(['X-Own-Probe', '2']).writeHead(response, 200, PROBE, ['Content-Length', '0'])
    const head: unknown = Reflect.get(response, '_header')
    return (
      typeof head === 'string' &&
      head.startsWith('HTTP/1.1 200 OK\r\nX-Fixed-Probe: 1\r\nX-Own-Probe: 2\r\nContent-Length: 0\r\n')
    )
  } catch {
    return false
  }
}

/** The check above, made once for the process: the server and the start-up warning read it. */
export const FIXED_HEADS_WORK = fixedHeadsWork()
