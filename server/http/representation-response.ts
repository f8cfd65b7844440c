import type {IncomingMessage, ServerResponse} from 'node:http'
import {LRUCache} from 'lru-cache'
import type {Representation, Variant} from '../snapshot/representation.ts'
import type {Body, ChunkedBody} from '../snapshot/chunked-body.ts'
import {answerRange, contentRange, sliceBody} from './byte-ranges.ts'
import {ACCEPT_RANGES} from '../snapshot/representation.ts'
import {negotiateContentCoding} from './content-coding.ts'
import {fixedHeaders, NO_FIXED_HEADERS, writeHeadWithFixed, type FixedHeaders} from './fixed-head.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {CDN_CACHE_CONTROL, SURROGATE_CONTROL} from '../snapshot/surrogate-keys.ts'
import {evaluatePreconditions} from './validators.ts'

/** Browsers and CDNs may reuse a response for a minute, and serve it stale while they revalidate. */
export const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300, stale-if-error=86400'

/**
 * Writes pre-built bytes in the content coding the client prefers, or a bodiless 304 when the
 * request's validators match that variant. Nothing is serialised, hashed or compressed here,
 * except a variant compressed on its first request when the snapshot has not done it yet.
 * `extra` headers are the per-request ones (request id, rate limit, catalog version), whose values
 * this server makes so that they cannot break the header grammar (see `writeHeadWithFixed`), and
 * `fixed` the ones the request shares with many others (CORS, the rate-limit policy).
 *
 * `servedFrom` names the snapshot the representation was looked up in and the store it is served from.
 * A response that waited for a first compression (a large bulk document takes seconds)
 * may find `snapshot` replaced by then, and the CDN purge for the replacement already sent: a CDN
 * skips a fetch still under way when it purges (Varnish's xkey does), so it would keep these old
 * bytes for the whole edge TTL. Such a response still answers the client, who asked before the
 * change, but tells the CDN not to keep it.
 */
export interface RepresentationHeaders {
  /** Per-request headers, a flat name, value list. */
  extra?: readonly string[]
  /** Headers shared with many other requests. */
  fixed?: FixedHeaders
  /** The snapshot the representation was looked up in, and the store it is served from. */
  servedFrom?: {store: Pick<SnapshotStore, 'current'>; snapshot: Snapshot}
}

export function sendRepresentation(
  request: IncomingMessage,
  response: ServerResponse,
  representation: Representation,
  headers: RepresentationHeaders = {},
): void {
  const {extra = [], fixed = NO_FIXED_HEADERS, servedFrom} = headers
  const coding = negotiateContentCoding(request.headers['accept-encoding'])
  if (coding === 'identity')
    return writeVariant(request, response, representation, representation.identity, extra, fixed)
  const variant = representation.encoded(coding)
  if (variant !== undefined)
    return writeVariant(request, response, representation, variant ?? representation.identity, extra, fixed)
  const writeAfterWait = (waited: Variant) => {
    const replaced = servedFrom !== undefined && servedFrom.store.current() !== servedFrom.snapshot
    writeVariant(request, response, representation, waited, extra, fixed, replaced)
  }
  representation.encode(coding).then(
    (encoded) => writeAfterWait(encoded ?? representation.identity),
    () => writeAfterWait(representation.identity),
  )
}

/**
 * In place of the edge TTL headers a representation carries: no-store in both (Fastly's own takes
 * max-age=0 where it does not read no-store); the generated VCL reads the first. Browsers keep
 * Cache-Control as it is: the bytes were current when the client asked.
 */
const NOT_KEPT_BY_THE_EDGE = [CDN_CACHE_CONTROL, 'no-store', SURROGATE_CONTROL, 'no-store, max-age=0']
const EDGE_TTL_HEADERS = new Set([CDN_CACHE_CONTROL, SURROGATE_CONTROL])

/**
 * A 206, 416 or 412 answers the request's Range, If-Range or If-Match as much as the URL, and no
 * Vary can name those: a shared cache keeping it could hand a part, or a refusal, to the next
 * client as the document. So no cache keeps one, and the edge TTL headers are left out (Varnish's
 * builtin VCL and Fastly read Cache-Control only when no Surrogate-Control says otherwise); a
 * cache that serves ranges cuts them from the whole 200 it keeps.
 */
const NOT_STORED = 'no-store'

/**
 * A variant's response heads, built on its first request: a 200's and a 304's fixed lines, and the
 * 200's Content-Length, which goes through `writeHead`'s own list (Node frames the body by it).
 */
interface Heads {
  ok: FixedHeaders
  /** `writeHead`'s list: Content-Length. */
  framing: string[]
  notModified: FixedHeaders
  /** For a 206 (`ok`) and a 416 or 412 (`notModified`): made on the variant's first such answer. */
  notStored: Heads | undefined
}

function headsOfVariant(
  representation: Representation,
  variant: Variant,
  headerList: readonly string[],
  cacheControl = CACHE_CONTROL,
): Heads {
  const validators = [
    'ETag',
    variant.etag,
    'Last-Modified',
    representation.lastModifiedHeader,
    'Cache-Control',
    cacheControl,
    'Vary',
    'Accept-Encoding',
  ]
  const content = [
    'Content-Type',
    representation.contentType,
    ...(variant.coding === 'identity' ? [] : ['Content-Encoding', variant.coding]),
  ]
  return {
    ok: fixedHeaders([...validators, ...content, ...headerList]),
    framing: ['Content-Length', String(variant.body.length)],
    notModified: fixedHeaders([...validators, ...headerList]),
    notStored: undefined,
  }
}

/** The representation's own headers without its edge TTL. */
function withoutEdgeTtl(list: readonly string[]): string[] {
  const kept: string[] = []
  for (let index = 0; index + 1 < list.length; index += 2) {
    const name = list[index] ?? ''
    if (!EDGE_TTL_HEADERS.has(name)) kept.push(name, list[index + 1] ?? '')
  }
  return kept
}

/** A variant's heads telling the edge not to keep the response (rare: made for the response, not cached). */
function headsNotKeptByTheEdge(representation: Representation, variant: Variant): Heads {
  return headsOfVariant(representation, variant, [
    ...NOT_KEPT_BY_THE_EDGE,
    ...withoutEdgeTtl(representation.headerList),
  ])
}

/** The heads of a 206, 416 or 412, which no cache keeps (see NOT_STORED). */
function headsNotStored(representation: Representation, variant: Variant): Heads {
  const heads = headsFor(representation, variant)
  heads.notStored ??= headsOfVariant(representation, variant, withoutEdgeTtl(representation.headerList), NOT_STORED)
  return heads.notStored
}
// The hot variants' heads (a list and joined lines each), bounded in count: a large catalog
// would otherwise hold a head per item ever requested.
const headsOf = new LRUCache<Variant, Heads>({max: 4096})

function headsFor(representation: Representation, variant: Variant): Heads {
  let heads = headsOf.get(variant)
  if (!heads) {
    heads = headsOfVariant(representation, variant, representation.headerList)
    headsOf.set(variant, heads)
  }
  return heads
}

/**
 * The preconditions first (validators.ts: a 412, a 304), then a Range, then the whole 200; HEAD
 * gets the headers of GET. The variant's, the request's shared and its own lines go into the head
 * as they are; Content-Length to `writeHead`'s list, which Node reads to frame the body.
 */
function writeVariant(
  request: IncomingMessage,
  response: ServerResponse,
  representation: Representation,
  variant: Variant,
  extraHeaders: readonly string[],
  fixed: FixedHeaders,
  notKeptByTheEdge = false,
): void {
  const outcome = evaluatePreconditions(request.headers, variant.etag, representation)
  if (outcome === 'failed')
    return writeBodiless(response, 412, headsNotStored(representation, variant), fixed, extraHeaders)
  const heads = notKeptByTheEdge ? headsNotKeptByTheEdge(representation, variant) : headsFor(representation, variant)
  if (outcome === 'not-modified') {
    writeHeadWithFixed(response, 304, heads.notModified, fixed, extraHeaders)
    response.end()
    return
  }
  // Only a request with Range (for a document that takes them) leaves the common path here.
  if (request.headers.range !== undefined && representation.headers['Accept-Ranges'] === ACCEPT_RANGES['Accept-Ranges'])
    if (writeRange(request, response, representation, variant, fixed, extraHeaders)) return
  writeHeadWithFixed(response, 200, heads.ok, fixed, extraHeaders, heads.framing)
  if (request.method === 'HEAD') response.end()
  else writeBody(response, variant.body)
}

/** A 412 or 416: the validators and the document's own headers, none of its content's. */
function writeBodiless(
  response: ServerResponse,
  status: 412 | 416,
  heads: Heads,
  fixed: FixedHeaders,
  own: readonly string[],
): void {
  writeHeadWithFixed(response, status, heads.notModified, fixed, own, ['Content-Length', '0'])
  response.end()
}

function writeBody(response: ServerResponse, body: Body): void {
  if (Buffer.isBuffer(body)) response.end(body)
  else if (body.whole) response.end(body.whole)
  else writeChunks(response, body)
}

/**
 * A 206 with the one range asked for, of this variant's bytes (a gzip range is of the gzip bytes,
 * as nginx serves a pre-compressed file), or a bodiless 416 naming the length; false for a request
 * the whole 200 answers. A 416 is said in its status and Content-Range alone, as RFC 9110 allows:
 * there is nothing wrong with the document for a problem body to explain. Neither is kept by a
 * cache (NOT_STORED).
 */
function writeRange(
  request: IncomingMessage,
  response: ServerResponse,
  representation: Representation,
  variant: Variant,
  fixed: FixedHeaders,
  extraHeaders: readonly string[],
): boolean {
  const length = variant.body.length
  const answer = answerRange(request, length, variant.etag, representation.lastModifiedHeader)
  if (answer.status === 200) return false
  const heads = headsNotStored(representation, variant)
  const own = [...extraHeaders, 'Content-Range', contentRange(answer, length)]
  if (answer.status === 416) {
    writeBodiless(response, 416, heads, fixed, own)
    return true
  }
  const part = sliceBody(variant.body, answer.start, answer.end)
  writeHeadWithFixed(response, 206, heads.ok, fixed, own, ['Content-Length', String(part.length)])
  writeBody(response, part)
  return true
}

/**
 * A large chunked body (the bulk document of a big catalog) is written from its own chunks, no
 * stream or copy per request: each burst is corked into one `writev` and goes on until the socket
 * has enough queued (write returns false); the next burst waits for 'drain'. A response that closes
 * first (the client went away) stops the writing and lets go of the chunks.
 */
function writeChunks(response: ServerResponse, body: ChunkedBody): void {
  const {chunks} = body
  let next = 0
  const writeBurst = () => {
    response.cork()
    let writable = true
    while (writable && next < chunks.length) writable = response.write(chunks[next++] ?? EMPTY)
    response.uncork()
    if (next === chunks.length) {
      response.off('close', stop)
      response.end()
    } else response.once('drain', writeBurst)
  }
  const stop = () => {
    next = chunks.length
    response.off('drain', writeBurst)
  }
  response.once('close', stop)
  writeBurst()
}

const EMPTY = Buffer.alloc(0)
