// A snapshot's documents outside `/api/v1`, in one place: what is built (two parts: the discovery
// documents and sitemaps, and the podcast feed on its own), when (on first use, never on an edit's
// path), by whom (the makers in SnapshotSettings, from discovery/ and feed/), and what the purge
// planner reads meanwhile (the predecessor's, through `built`), and what the makers left out.
import {ChunkedBody} from './chunked-body.ts'
import {whileBuildingNow} from './heap-growth.ts'
import {represent, type Representation} from './representation.ts'
import {siteKey, type SurrogateKeying} from './surrogate-keys.ts'

/** A document outside `/api/v1` (OpenAPI, discovery documents, sitemaps, the feed), made from a snapshot. */
export interface SiteDocument {
  /** Absolute path on this origin, such as `/llms.txt`. */
  path: string
  /** A document assembled from parts (the feed's items) keeps them as a ChunkedBody, with the ETag made from their digests. */
  body: Buffer | string | ChunkedBody
  etag?: string
  contentType: string
  headers?: Record<string, string>
}

/** An item a document (the feed, a sitemap) leaves out because it could not be written, and why. */
export interface LeftOut {
  documentId: string
  reason: string
}

/** An item left out, and by which output: `sitemaps`, or the feed's path. */
export interface LeftOutItem extends LeftOut {
  output: string
}

/** Each maker tells `leftOut` what it could not carry. */
interface SiteDocumentMakers {
  /** Every site document but the feed, made from the finished snapshot. */
  documents: (leftOut: (item: LeftOut) => void) => readonly SiteDocument[]
  /** The podcast feed, built apart: a feed reader after an edit must not wait for the sitemaps. */
  feed: {path: string; build: (leftOut: (item: LeftOut) => void) => SiteDocument | undefined} | undefined
}

export interface SiteDocumentsOptions extends SiteDocumentMakers {
  keying: SurrogateKeying | undefined
  /** What the previous snapshot had built, to keep a document's date where its bytes did not change. */
  earlier: ReadonlyMap<string, Representation> | undefined
  builtAt: Date
  contentLastModified: Date
  /** Told of each item left out as it is (to be logged). */
  onLeftOut?: ((item: LeftOutItem) => void) | undefined
}

interface SiteDocuments {
  /** A site document by absolute path; builds the part it belongs to on first use. */
  get(path: string): Representation | undefined
  /** Every site document's path; builds both parts. */
  paths(): string[]
  /** Every site document but the feed, built now (the feed is as large as the bulk document, so it waits for a client). */
  documents(): Iterable<Representation>
  /** Each part as built, or the predecessor's until it is; builds nothing, and undefined when neither was built. */
  built(): ReadonlyMap<string, Representation> | undefined
  /** What the parts built so far left out: a part not yet built has left nothing out yet. */
  leftOut(): readonly LeftOutItem[]
}

/**
 * A part before and after it is built. Once built, the predecessor's version is dropped, so a
 * snapshot keeps nothing of a retired one longer than it needs it.
 */
type Part<Built> = {built: false; earlier: Built | undefined} | {built: true; value: Built}

/** The output named for what the documents other than the feed leave out (the sitemaps are the ones that do). */
const SITEMAPS_OUTPUT = 'sitemaps'

const newest = <Built>(part: Part<Built>) => (part.built ? part.value : part.earlier)

export function siteDocumentsOnFirstUse(options: SiteDocumentsOptions): SiteDocuments {
  // The closures below read these, never `options`, which holds the predecessor's documents.
  const {documents, feed, keying, builtAt, contentLastModified, onLeftOut} = options
  // Each part is built once, so at most one entry per item and output.
  const leftOut = new Map<string, LeftOutItem>()
  const leftOutBy = (output: string) => (item: LeftOut) => {
    const key = `${output} ${item.documentId} ${item.reason}`
    if (leftOut.has(key)) return
    const entry = {output, ...item}
    leftOut.set(key, entry)
    onLeftOut?.(entry)
  }
  const hadEarlier = options.earlier !== undefined
  const dated = (earlier: Representation | undefined) => (etag: string) =>
    earlier?.etag === etag ? earlier.lastModified : hadEarlier ? builtAt : contentLastModified

  let pages: Part<ReadonlyMap<string, Representation>> = {built: false, earlier: options.earlier}
  // Built as undefined when the catalog has no feed (no podcast settings).
  let feedPart: Part<Representation | undefined> = {built: false, earlier: feed && options.earlier?.get(feed.path)}

  const builtPages = () => {
    if (!pages.built) {
      const earlier = pages.earlier
      const made = whileBuildingNow(() => documents(leftOutBy(SITEMAPS_OUTPUT))).map((document) => {
        const kept = earlier?.get(document.path)
        const representation = representSite(document, dated(kept), keying)
        return [document.path, kept && isSame(kept, representation) ? kept : representation] as const
      })
      pages = {built: true, value: new Map(made)}
    }
    return pages.value
  }
  const builtFeed = () => {
    if (!feedPart.built) {
      const earlier = feedPart.earlier
      const document = whileBuildingNow(() => feed?.build(leftOutBy(feed.path)))
      feedPart = {built: true, value: document && representSite(document, dated(earlier), keying)}
    }
    return feedPart.value
  }

  return {
    get: (path) => (path === feed?.path ? builtFeed() : builtPages().get(path)),
    paths: () => [...builtPages().keys(), ...(feed && builtFeed() ? [feed.path] : [])],
    documents: () => builtPages().values(),
    built() {
      const pagesSoFar = newest(pages)
      const feedSoFar = newest(feedPart)
      return feed === undefined || !feedSoFar ? pagesSoFar : new Map([...(pagesSoFar ?? []), [feed.path, feedSoFar]])
    },
    leftOut: () => [...leftOut.values()],
  }
}

/** The same bytes served the same way: the earlier one is kept, with the compressed variants it has made. */
const isSame = (earlier: Representation, made: Representation) =>
  earlier.etag === made.etag &&
  earlier.contentType === made.contentType &&
  JSON.stringify(earlier.headers) === JSON.stringify(made.headers)

/** A site document's representation, with its surrogate key when a CDN is purged. */
function representSite(
  document: SiteDocument,
  lastModifiedFor: (etag: string) => Date,
  keying: SurrogateKeying | undefined,
): Representation {
  const headers = {...document.headers, ...keying?.headersFor(siteKey(document.path), siteKey(document.path))}
  const options = {contentType: document.contentType, headers, etag: document.etag}
  return document.body instanceof ChunkedBody
    ? represent(document.body, lastModifiedFor, options)
    : represent(document.body, lastModifiedFor, options)
}
