// What a snapshot is to its readers: the interface every delivery reads, and what a build is given.
import type {TranscriptExtension} from '../../catalog/v1/transcript.ts'
import type {Catalog, CatalogEntry} from '../../catalog/v1/catalog.ts'
import type {ChangesRequest} from '../api/v1/changes.ts'
import type {CollectionName, Links} from '../../catalog/v1/links.ts'
import type {SearchRequest} from '../api/v1/search.ts'
import type {ServiceIndexSettings} from '../api/v1/service-index.ts'
import type {ChangeHistory} from './change-history.ts'
import type {ChangesPageResult} from './changes-page.ts'
import type {DemandCaches} from './demand-caches.ts'
import type {Representation} from './representation.ts'
import type {SearchIndex} from './search-index.ts'
import type {SearchPageAnswer} from './search-page.ts'
import type {SharedHistory} from './shared-history.ts'
import type {LeftOut, LeftOutItem, SiteDocument} from './site-documents-on-first-use.ts'
import type {SurrogateKeying} from './surrogate-keys.ts'

export interface PageRequest {
  limit: number
  cursor: string | null
}

export type PageResult = {ok: true; representation: Representation<Buffer>} | {ok: false; reason: string}

/**
 * Everything a client can read, built once per content version. Immutable: a rebuild makes a new
 * snapshot and swaps it in whole, so a request sees the old one or the new one, never a mix.
 */
export interface Snapshot {
  /** Digest of every served item's bytes, in order: changes exactly when any served content changes. */
  readonly version: string
  readonly builtAt: Date
  /** When the served content last changed (moves only with `version`). */
  readonly contentLastModified: Date
  readonly catalog: Catalog
  /** The next release of a held-back episode (api/v1/scheduled.ts): when, and which documents; a build then serves them. */
  readonly nextRelease: Readonly<{at: Date; documentIds: readonly string[]}> | undefined
  readonly counts: Readonly<Record<CollectionName, number>>
  /** Paths relative to `/api/v1/`, such as `episodes.json` or `voices/noa-levi.json`. */
  readonly paths: readonly string[]
  representation(path: string): Representation | undefined
  item(collection: CollectionName, slug: string): Representation<Buffer> | undefined
  /** An episode's chapters in the Podcasting 2.0 JSON chapters format; undefined when it has none. */
  chapters(slug: string): Representation<Buffer> | undefined
  /** An episode's transcript in one of its three formats (catalog/v1/transcript.ts); undefined when it holds none. */
  transcript(slug: string, extension: TranscriptExtension): Representation<Buffer> | undefined
  /** A document outside `/api/v1`, by absolute path. */
  site(path: string): Representation | undefined
  readonly sitePaths: readonly string[]
  /**
   * The site documents built so far (site-documents-on-first-use.ts): this snapshot's own, or, until
   * it builds them, those its predecessors built; undefined when none were. What a client or an edge
   * may hold, for the purge planner. Builds nothing: that would put the sitemaps on every edit's path.
   */
  builtSiteDocuments(): ReadonlyMap<string, Representation> | undefined
  /** The items the site documents built so far (the feed, the sitemaps) left out, and why. */
  leftOut(): readonly LeftOutItem[]
  /** Compresses the few representations most clients read first (the index, first pages), before it is served; items are compressed on first request. */
  precompress(): Promise<void>
  /**
   * Builds and compresses the site documents (OpenAPI, discovery, sitemaps) off the request path.
   * The bulk document is compressed on its first request instead: it grows with the catalog, and
   * its CPU is spent only if a client asks.
   */
  warm(): Promise<void>
  /** A list page for a `limit` and `cursor`; the default page is pre-built, others are built once and kept. */
  listPage(collection: CollectionName, request: PageRequest): PageResult
  /** A search's answer (search-page.ts): MCP's ranking, built on first request and kept beside the pages. */
  searchPage(request: SearchRequest): SearchPageAnswer
  /** The versions served up to this one and the items each changed: what a change-feed token is read against. */
  readonly history: ChangeHistory
  /**
   * The search index this snapshot shares with those built from it (search-index.ts): made on the
   * first search, in the background for a large catalog.
   */
  readonly searchIndex: SearchIndex
  /** A change-feed page (changes-page.ts): what changed since a token, or why the token is unknown (a 410). */
  changesPage(request: ChangesRequest): ChangesPageResult
  /**
   * The slugs whose items may differ from `earlier`'s, for comparing two snapshots: the few an edit
   * touched when this snapshot's list was made from `earlier`'s, or else every slug of both.
   */
  slugsToCompare(collection: CollectionName, earlier: Snapshot): Iterable<string>
  /** Changes exactly when any page of the collection's list may change. */
  collectionDigest(collection: CollectionName): string
}

export interface SnapshotSettings {
  links: Links
  index: ServiceIndexSettings
  /** Makes the documents outside `/api/v1` from the finished snapshot; built on first use, once. */
  site?: (snapshot: Snapshot, leftOut: (item: LeftOut) => void) => SiteDocument[]
  /** The podcast feed, built on its own on first use: a feed reader after an edit must not wait for the sitemaps. */
  feed?: {path: string; build: (snapshot: Snapshot, leftOut: (item: LeftOut) => void) => SiteDocument | undefined}
  /** Told of each item a site document leaves out, as it is built (to be logged). */
  onLeftOut?: (item: LeftOutItem) => void
  /** Where pages other than the default ones and items' compressed variants are kept, across snapshots. */
  caches: DemandCaches
  /** Surrogate keys and edge TTL headers, when a CDN is purged; none otherwise. */
  keying?: SurrogateKeying
  /** The versions other replicas served (with Redis), so that their change-feed tokens work here too. */
  sharedHistory?: SharedHistory
}

/** An item's served bytes as a saved snapshot holds them, so a restart neither serialises nor hashes it again. */
export interface KnownItem {
  /** The `{"data":…}` body. */
  body: Buffer
  etag: string
  lastModified: Date
}

export type KnownItems = ReadonlyMap<CatalogEntry<unknown>, KnownItem>
