// A snapshot's documents outside `/api/v1`, in one place: what is built (two parts: the discovery
// documents and sitemaps, and the podcast feed on its own), when (on first use, never on an edit's
// path), by whom (the makers in SnapshotSettings, from discovery/ and feed/), and what the purge
// planner reads meanwhile (the predecessor's, through `built`).
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

interface SiteDocumentMakers {
  /** Every site document but the feed, made from the finished snapshot. */
  documents: () => readonly SiteDocument[]
  /** The podcast feed, built apart: a feed reader after an edit must not wait for the sitemaps. */
  feed: {path: string; build: () => SiteDocument | undefined} | undefined
}

export interface SiteDocumentsOptions extends SiteDocumentMakers {
  keying: SurrogateKeying | undefined
  /** What the previous snapshot had built, to keep a document's date where its bytes did not change. */
  earlier: ReadonlyMap<string, Representation> | undefined
  builtAt: Date
  contentLastModified: Date
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
}

/**
 * A part before and after it is built. Once built, the predecessor's version is dropped, so a
 * snapshot keeps nothing of a retired one longer than it needs it.
 */
type Part<Built> = {built: false; earlier: Built | undefined} | {built: true; value: Built}

const newest = <Built>(part: Part<Built>) => (part.built ? part.value : part.earlier)

export function siteDocumentsOnFirstUse(options: SiteDocumentsOptions): SiteDocuments {
  // The closures below read these, never `options`, which holds the predecessor's documents.
  const {documents, feed, keying, builtAt, contentLastModified} = options
  const hadEarlier = options.earlier !== undefined
  const dated = (earlier: Representation | undefined) => (etag: string) =>
    earlier?.etag === etag ? earlier.lastModified : hadEarlier ? builtAt : contentLastModified

  let pages: Part<ReadonlyMap<string, Representation>> = {built: false, earlier: options.earlier}
  // Built as undefined when the catalog has no feed (no podcast settings).
  let feedPart: Part<Representation | undefined> = {built: false, earlier: feed && options.earlier?.get(feed.path)}

  const builtPages = () => {
    if (!pages.built) {
      const earlier = pages.earlier
      const made = whileBuildingNow(documents).map((document) => {
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
      const document = whileBuildingNow(() => feed?.build())
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
