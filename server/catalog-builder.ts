import type {Logger} from 'pino'
import {z} from 'zod'
import {mapCatalog, patchCatalog, type DocumentUpdate} from '../catalog/v1/catalog.ts'
import {createLinks, type CollectionName} from '../catalog/v1/links.ts'
import {releasedAsOf, wholeCatalog} from './api/v1/scheduled.ts'
import type {Clock} from './clock.ts'
import type {Config} from './config.ts'
import {readCatalog} from './content/catalog-read.ts'
import {EPISODE_BY_ID_QUERY, MEETUP_BY_ID_QUERY, REFERENCING_QUERY, VOICE_BY_ID_QUERY} from '../catalog/queries.ts'
import type {ContentSource} from './content/source.ts'
import {buildSiteDocuments, feedSiteDocument} from './discovery/site-documents.ts'
import type {SurrogateKeying} from './snapshot/surrogate-keys.ts'
import {FEED_PATH} from './feed/rss-feed.ts'
import type {LeftOutItems} from './left-out-items.ts'
import {whileBuilding} from './snapshot/heap-growth.ts'
import {createDemandCaches, type DemandCaches} from './snapshot/demand-caches.ts'
import {describeRefused, type SnapshotFile} from './snapshot/saved-snapshot.ts'
import {buildSnapshot, type Snapshot} from './snapshot/snapshot.ts'
import type {SharedHistory} from './snapshot/shared-history.ts'
import type {BuildResult, PendingChange, SnapshotBuilder} from './snapshot/build-result.ts'
import type {Restored} from './snapshot/restored-start.ts'
import type {LeftOut, LeftOutItem} from './snapshot/site-documents-on-first-use.ts'
import {errorMessage} from './errors.ts'

const WARM_AFTER_MS = 1000

const identified = z.looseObject({_id: z.string()})
const referencingSchema = z.object({episodes: z.array(identified), meetups: z.array(identified)})

export interface CatalogBuilderDependencies {
  source: ContentSource
  config: Config
  clock: Clock
  caches?: DemandCaches
  /** Surrogate keys for the configured CDN, shared with whoever plans its purges. */
  keying?: SurrogateKeying
  /** How many changes the edge has accepted so far (edge-purging.ts): a build covers those accepted before it starts. */
  acceptedCount?: (() => number) | undefined
  /** Where a saved snapshot is looked for at start (`restore`), in SNAPSHOT_DIR. */
  saved?: {file: SnapshotFile; directory: string}
  /**
   * Where the builder says what became of the saved snapshot: reused (the source's fingerprint
   * confirms it), refused (the source is then read in full), or served without its damaged items.
   */
  logger?: Logger
  /** Site documents for `npm run export`'s static files: no MCP, no `limit` (see SiteSettings.staticExport). */
  staticExport?: boolean
  /** Where each item an XML output (the feed, a sitemap) leaves out, because it could not be written, is logged (the snapshot keeps them). */
  leftOut?: Pick<LeftOutItems, 'record'>
  /** Other replicas' versions (with Redis): their change-feed tokens work here too. */
  sharedHistory?: SharedHistory
}

export interface CatalogBuilder {
  /** Builds the next snapshot; a full read with a saved snapshot kept carries the source's fingerprint. */
  build: SnapshotBuilder
  /**
   * The snapshot saved in SNAPSHOT_DIR, to serve before the first read (restored-start.ts): it
   * carries the fingerprint it was saved with, unless it is only a fallback.
   */
  restore(): Promise<Restored>
}

/**
 * The one data flow: source -> GROQ -> mapping and validation -> release (episodes whose release
 * time is still ahead are held back, as of the build's clock) -> snapshot. A change that names
 * documents reads just those (and, for a voice, the episodes and meetups that reference it) and
 * patches the previous catalog; an unknown change reads the whole catalog.
 */
export function createCatalogBuilder(dependencies: CatalogBuilderDependencies): CatalogBuilder {
  const {
    source,
    config,
    clock,
    saved,
    caches = createDemandCaches(config.caches),
    keying,
    logger,
    leftOut,
  } = dependencies
  const links = createLinks(config)
  const settings = {links, feedUrl: config.feedUrl}
  const snapshotSettings = {
    links,
    index: {
      apiName: config.apiName,
      feedUrl: config.feedUrl,
      contactEmail: config.contactEmail,
      publicBaseUrl: config.publicBaseUrl,
    },
    site: (snapshot: Snapshot, leftOut: (item: LeftOut) => void) =>
      buildSiteDocuments(snapshot, {...config, staticExport: dependencies.staticExport}, leftOut),
    feed: {
      path: FEED_PATH,
      build: (snapshot: Snapshot, leftOut: (item: LeftOut) => void) => feedSiteDocument(snapshot, config, leftOut),
    },
    onLeftOut: leftOut && ((item: LeftOutItem) => leftOut.record(item)),
    caches,
    keying,
    sharedHistory: dependencies.sharedHistory,
  }
  const readDocument = async (documentId: string, collection: CollectionName): Promise<DocumentUpdate[]> => {
    if (collection !== 'voices') {
      return [
        {
          collection,
          documentId,
          row: await source.fetch(collection === 'episodes' ? EPISODE_BY_ID_QUERY : MEETUP_BY_ID_QUERY, {
            id: documentId,
          }),
        },
      ]
    }
    const [row, referencing] = await Promise.all([
      source.fetch(VOICE_BY_ID_QUERY, {id: documentId}),
      source.fetch(REFERENCING_QUERY, {id: documentId}),
    ])
    const {episodes, meetups} = referencingSchema.parse(referencing)
    return [
      {collection, documentId, row},
      ...episodes.map((episode) => ({collection: 'episodes' as const, documentId: episode._id, row: episode})),
      ...meetups.map((meetup) => ({collection: 'meetups' as const, documentId: meetup._id, row: meetup})),
    ]
  }
  const readAll = async (previous: BuildResult | undefined): Promise<BuildResult> => {
    const fingerprint = saved && source.fingerprint ? await source.fingerprint() : undefined
    // A restored snapshot whose source has not moved since it was saved is the source's content.
    const restored = previous?.restoredFrom
    if (previous && restored && restored.fingerprint === fingerprint) {
      logger?.info(
        `reusing the snapshot saved at ${restored.savedAt.toISOString()}: the source's fingerprint has not changed`,
      )
      // Confirmed once, without `restoredFrom`: a later reconcile reads in full, as it always has.
      // No fingerprint either: it is already the saved file, so it is never saved again.
      return {snapshot: previous.snapshot}
    }
    const before = previous?.snapshot
    const catalog = mapCatalog(await readCatalog(source), settings, before && wholeCatalog(before.catalog))
    const now = clock()
    const snapshot = buildSnapshot(releasedAsOf(catalog, now), snapshotSettings, before, now)
    return fingerprint === undefined ? {snapshot} : {snapshot, fingerprint}
  }
  // The saved snapshot, served before the source is asked anything: the source may be down,
  // emptied or cut short, and the store's first read (guarded, retried) decides what replaces it.
  const loadSaved = async (): Promise<Restored> => {
    if (!saved) return {}
    try {
      const restored = await saved.file.load()
      if (!restored) return {}
      const now = clock()
      // Released against this start's clock: an episode whose time passed while the server was down is served at once.
      const snapshot = buildSnapshot(
        releasedAsOf(restored.catalog, now),
        snapshotSettings,
        undefined,
        now,
        restored.items,
        restored.history,
      )
      // Other code's bytes, or a catalog missing damaged items, are a fallback for a source that
      // fails at start: a read replaces them in full, whatever the fingerprint says.
      const partial = restored.refused.length > 0
      const built: BuildResult =
        restored.otherCode || partial
          ? {snapshot}
          : {snapshot, restoredFrom: {fingerprint: restored.fingerprint, savedAt: restored.savedAt}}
      const refused = partial ? describeRefused(restored.refused) : undefined
      if (refused)
        logger?.warn(
          `the snapshot saved in ${saved.directory} is damaged: ${refused}; reading the source first, serving the rest of the saved snapshot if it fails`,
        )
      return {
        snapshot: {built, savedAt: restored.savedAt, otherCode: restored.otherCode, partial},
        ...(refused === undefined ? {} : {refused}),
      }
    } catch (error) {
      logger?.warn(
        {err: error},
        `the snapshot saved in ${saved.directory} could not be read; reading the source in full`,
      )
      return {refused: errorMessage(error)}
    }
  }
  const buildFromSource: SnapshotBuilder = async (previous, change) => {
    if (!previous || change.kind === 'all') return readAll(previous)
    const reads = await Promise.all(
      [...change.documents].map(([documentId, collection]) => readDocument(documentId, collection)),
    )
    // A document named by the change and also referencing a changed voice is applied once.
    const updates = [...new Map(reads.flat().map((update) => [update.documentId, update])).values()]
    const catalog = patchCatalog(wholeCatalog(previous.snapshot.catalog), updates, settings)
    const now = clock()
    return {snapshot: buildSnapshot(releasedAsOf(catalog, now), snapshotSettings, previous.snapshot, now)}
  }
  // The site documents (sitemaps of every item among them) are built and compressed once a snapshot
  // has stayed the newest for WARM_AFTER_MS: a burst of edits would otherwise spend that CPU on
  // every snapshot it retires, delaying the next edit.
  // A request that comes first builds what it asks for, so skipping or failing here loses nothing.
  // Only the newest snapshot has a timer: a retired one's is cleared, so nothing holds it. A first
  // build's are left to the caller, which warms them once its own start-up work is done: building
  // them while a warm restart parses the dataset file would add their memory to the parse's peak.
  let warmTimer: NodeJS.Timeout | undefined
  // Its own function, so the timer's closure holds the new snapshot only: a closure beside the
  // build's would share its scope, and with it the previous snapshot, until the timer fires.
  const warmLater = (snapshot: Snapshot) => {
    warmTimer = setTimeout(() => void snapshot.warm().catch(() => undefined), WARM_AFTER_MS).unref()
  }
  return {
    async build(previous, change) {
      const covers = dependencies.acceptedCount?.()
      const next = await whileBuilding(async () => {
        const built = await buildFromSource(previous, change)
        await built.snapshot.precompress()
        return built
      })
      clearTimeout(warmTimer)
      if (previous) warmLater(next.snapshot)
      return covers === undefined ? next : {...next, covers}
    },
    async restore() {
      const restored = await whileBuilding(loadSaved)
      await restored.snapshot?.built.snapshot.precompress()
      return restored
    },
  }
}

/**
 * Snapshots alone, for what keeps nothing else of a build (`npm run export`, benchmarks, tests):
 * each is built from the previous snapshot as the store's builds are, with no saved snapshot.
 */
export function catalogSnapshotBuilder(
  dependencies: Omit<CatalogBuilderDependencies, 'saved'>,
): (previous: Snapshot | undefined, change: PendingChange) => Promise<Snapshot> {
  const {build} = createCatalogBuilder(dependencies)
  return async (previous, change) => (await build(previous && {snapshot: previous}, change)).snapshot
}

/**
 * The first build's start-up work, once the server listens, so that a restored snapshot answers at
 * once and the first edit is still fast: the source's preparation, then the served snapshot's site
 * documents (sitemaps of every item), one at a time. A request that comes first builds what it asks for.
 */
export function prepareAfterListening(
  source: Pick<ContentSource, 'description' | 'prepare'>,
  current: () => Snapshot,
  logger: Logger,
): void {
  whileBuilding(async () => source.prepare?.())
    .catch((error: unknown) =>
      logger.warn({err: error}, `could not prepare ${source.description}; the first edit will read it`),
    )
    .then(() => current().warm())
    .catch(() => undefined)
}
