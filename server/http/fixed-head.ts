import {
  IncomingMessage,
  ServerResponse,
  validateHeaderName,
  validateHeaderValue,
  type OutgoingHttpHeaders,
} from 'node:http'
import {Socket} from 'node:net'

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

/**
 * Header lines many responses share (a variant's validators, CORS, the rate-limit policy),
 * validated and joined once: `writeHead` checks every name and value against the HTTP grammar
 * and joins the lines on every response, which a CPU profile put at about a tenth of a
 * pre-built response's cost on one core. `list` is the same headers as a flat name, value list,
 * for a response that is not a `FixedHeadResponse`.
 */
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

// The fixed lines of the `writeHead` under way: set just before it and taken by `_storeHeader`
// within it, on the one JavaScript thread (cheaper than a field on each response).
let pendingLines = ''

/**
 * The server's response class (createServer's documented `ServerResponse` option): `writeHead`
 * as usual, except that lines already validated can go into the head as they are. Everything
 * else in the head (status line, Date, Connection, Keep-Alive, framing) is still Node's.
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

const NO_FRAMING: string[] = []

/**
 * `writeHead(statusCode, first + second + own + framing)`. `own` are the response's own headers
 * (request id, RateLimit, Catalog-Version), whose values this server makes so that they cannot
 * break the grammar (an id that matched a pattern, numbers, a version hash): a `FixedHeadResponse`
 * joins them into the head unchecked, as it does the fixed lines. `framing` (Content-Length) goes
 * through `writeHead`'s own list, which Node reads. Responses that are not `FixedHeadResponse`s
 * (Express's, whose prototype Express replaces) take it all as one list, checked by Node.
 */
export function writeHeadWithFixed(
  response: ServerResponse,
  statusCode: number,
  first: FixedHeaders,
  second: FixedHeaders,
  own: readonly string[],
  framing: string[] = NO_FRAMING,
): void {
  if (response instanceof FixedHeadResponse) response.writeHeadWithFixed(statusCode, first, second, own, framing)
  else response.writeHead(statusCode, [...first.list, ...second.list, ...own, ...framing])
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
    writeHeadWithFixed(response, 200, PROBE, NO_FIXED_HEADERS, ['X-Own-Probe', '2'], ['Content-Length', '0'])
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
