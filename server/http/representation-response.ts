import type {IncomingMessage, ServerResponse} from 'node:http'
import {LRUCache} from 'lru-cache'
import type {Representation, Variant} from '../snapshot/representation.ts'
import {answerRange, contentRange, sliceBody} from './byte-ranges.ts'
import {ACCEPT_RANGES} from '../snapshot/representation.ts'
import {selectVariant} from './content-coding.ts'
import {fixedHeaders, ResponseHeaders, type FixedHeaders} from './response-headers.ts'
import {writeBody} from './response-body.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {CDN_CACHE_CONTROL, SURROGATE_CONTROL} from '../snapshot/surrogate-keys.ts'
import {evaluatePreconditions} from './validators.ts'

/** Browsers and CDNs may reuse a response for a minute, and serve it stale while they revalidate. */
export const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300, stale-if-error=86400'

/**
 * `headers` are the response's shared and own lines (response-headers.ts), none when not given.
 *
 * `servedFrom` names the snapshot the representation was looked up in and the store it is served from.
 * A response that waited for a first compression (a large bulk document takes seconds)
 * may find `snapshot` replaced by then, and the CDN purge for the replacement already sent: a CDN
 * skips a fetch still under way when it purges (Varnish's xkey does), so it would keep these old
 * bytes for the whole edge TTL. Such a response still answers the client, who asked before the
 * change, but tells the CDN not to keep it.
 */
export interface SendOptions {
  headers?: ResponseHeaders | undefined
  servedFrom?: {store: Pick<SnapshotStore, 'current'>; snapshot: Snapshot}
}

/**
 * Writes pre-built bytes in the content coding the client prefers (content-coding.ts), or what
 * the request's validators ask for instead (validators.ts: a bodiless 304 or 412, a range).
 * Nothing is serialised, hashed or compressed here, except a variant compressed on its first
 * request when the snapshot has not done it yet.
 */
export function sendRepresentation(
  request: IncomingMessage,
  response: ServerResponse,
  representation: Representation,
  options: SendOptions = {},
): void {
  const headers = options.headers ?? new ResponseHeaders()
  const selected = selectVariant(representation, request.headers['accept-encoding'])
  if (!(selected instanceof Promise)) {
    writeVariant(request, response, headsFor(representation, selected), headers)
    return
  }
  const {servedFrom} = options
  void selected.then((variant) => {
    const replaced = servedFrom !== undefined && servedFrom.store.current() !== servedFrom.snapshot
    const heads = replaced ? headsNotKeptByTheEdge(representation, variant) : headsFor(representation, variant)
    writeVariant(request, response, heads, headers)
  })
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
 * A variant of a representation with its response heads, built on its first request: a 200's and
 * a 304's fixed lines, and the 200's Content-Length, which goes through `writeHead`'s own list
 * (Node frames the body by it).
 */
interface Heads {
  readonly representation: Representation
  readonly variant: Variant
  readonly ok: FixedHeaders
  /** `writeHead`'s list: Content-Length. */
  readonly framing: string[]
  readonly notModified: FixedHeaders
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
    representation,
    variant,
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
function headsNotStored({representation, variant}: Heads): Heads {
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
  heads: Heads,
  headers: ResponseHeaders,
): void {
  const {representation, variant} = heads
  const outcome = evaluatePreconditions(request.headers, variant.etag, representation)
  if (outcome === 'failed') {
    writeBodiless(response, 412, headsNotStored(heads), headers)
    return
  }
  if (outcome === 'not-modified') {
    headers.writeHead(response, 304, heads.notModified)
    response.end()
    return
  }
  // Only a request with Range (for a document that takes them) leaves the common path here.
  if (
    request.headers.range !== undefined &&
    representation.headers['Accept-Ranges'] === ACCEPT_RANGES['Accept-Ranges'] &&
    writeRange(request, response, heads, headers)
  )
    return
  headers.writeHead(response, 200, heads.ok, heads.framing)
  if (request.method === 'HEAD') response.end()
  else writeBody(response, variant.body)
}

/** A 412 or 416: the validators and the document's own headers, none of its content's. */
function writeBodiless(response: ServerResponse, status: 412 | 416, heads: Heads, headers: ResponseHeaders): void {
  headers.writeHead(response, status, heads.notModified, ['Content-Length', '0'])
  response.end()
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
  heads: Heads,
  headers: ResponseHeaders,
): boolean {
  const {representation, variant} = heads
  const length = variant.body.length
  const answer = answerRange(request, length, variant.etag, representation.lastModifiedHeader)
  if (answer.status === 200) return false
  const notStored = headsNotStored(heads)
  headers.add('Content-Range', contentRange(answer, length))
  if (answer.status === 416) {
    writeBodiless(response, 416, notStored, headers)
    return true
  }
  const part = sliceBody(variant.body, answer.start, answer.end)
  headers.writeHead(response, 206, notStored.ok, ['Content-Length', String(part.length)])
  writeBody(response, part)
  return true
}
