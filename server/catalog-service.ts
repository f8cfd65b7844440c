import type {AddressInfo} from 'node:net'
import {hostname} from 'node:os'
import {catalogSnapshotBuilder} from './catalog-builder.ts'
import {createCatalogServer} from './catalog-server.ts'
import type {Clock} from './clock.ts'
import type {Config} from './config.ts'
import {createSource} from './content/create-source.ts'
import type {ContentSource} from './content/source.ts'
import {watchFile} from './content/watch-file.ts'
import {registerEdgeMetrics} from './edge/edge-metrics.ts'
import {createEdgePurging, type EdgePurging, type EdgePurgingOptions} from './edge/edge-purging.ts'
import {createFeedPinger} from './feed/websub.ts'
import {createPodpingAnnouncer} from './feed/podping.ts'
import {bodyGate} from './http/connection-guard.ts'
import {DEFAULT_LIMITS, type ServerLimits} from './http/server.ts'
import type {ServerLog} from './observability/logger.ts'
import {createMetrics} from './observability/metrics.ts'
import {createLeftOutItems} from './left-out-items.ts'
import {createListenStreams} from './mcp/listen-streams.ts'
import {clientAddressResolver, rateLimitKey} from './http/client-address.ts'
import {createEventStreams, type EventStreamLimits} from './http/event-streams.ts'
import {createPublishPath} from './publish-path.ts'
import {createReleaseTimer} from './release-timer.ts'
import {connectRedis} from './scaling/redis.ts'
import {createDemandCaches} from './snapshot/demand-caches.ts'
import {whileBuilding} from './snapshot/heap-growth.ts'
import {guardMassDeletion} from './snapshot/mass-deletion-guard.ts'
import {openSnapshotFile} from './snapshot/saved-snapshot.ts'
import {documentChangeOf, isPodcastSettingsChange, type ContentChange} from './content/content-change.ts'
import {
  createSnapshotStore,
  type BuildOutcome,
  type SnapshotStore,
  type StoreOptions,
  type StoreStatus,
} from './snapshot/store.ts'
import type {Readiness} from './http/health.ts'
import {createSnapshotSaver} from './snapshot-saver.ts'
import {describeStartFailure, probeDirectory, snapshotDirectoryProblem} from './start-failure.ts'

/** What a test replaces; `npm start` replaces nothing. */
export interface CatalogServiceOverrides {
  source?: ContentSource
  clock?: Clock
  limits?: ServerLimits
  store?: Pick<StoreOptions, 'retryDelayMs' | 'maxRetryDelayMs' | 'maxDocumentsPerBuild'>
  /** Hears every build after the publish path has run (tests wait on it). */
  onBuild?: (outcome: BuildOutcome) => void
  /** The CDN's API (a stand-in), and how soon a failed purge and a failed queue write are retried. */
  edge?: Pick<EdgePurgingOptions, 'adapter' | 'retry' | 'writeRetryMs'>
  /** How this replica names itself to the others in Redis. */
  replicaId?: string
  /** Event-stream bounds a test can make small (the queue a stalled reader may fill, the heartbeat). */
  eventStreams?: Partial<EventStreamLimits>
  /** Site documents as `npm run export` writes them (the static export's test compares the two). */
  staticExport?: boolean
}

export interface CatalogService {
  readonly store: SnapshotStore
  readonly edge: EdgePurging | undefined
  readonly sourceDescription: string
  /** Listens on the configured port and address (an ephemeral port for PORT=0). */
  listen(): Promise<AddressInfo>
  /** An operator's confirmation (SIGHUP) that a re-read dropping most of the catalog is meant. */
  confirmMassDeletion(): void
  /** Stops timers and watchers, finishes in-flight requests (cut after `timeoutMs`), leaves Redis. */
  close(timeoutMs: number): Promise<void>
}

/** A start that cannot go on, told in one line naming what to fix (no stack trace). */
export class StartFailure extends Error {}

/**
 * Everything `npm start` runs, assembled in one place: the source, the snapshot store and what
 * happens after each build (publish-path.ts), the HTTP server, and the timers and watchers that
 * bring changes. Reads no environment and listens only when asked.
 */
export async function createCatalogService(
  config: Config,
  log: ServerLog,
  overrides: CatalogServiceOverrides = {},
): Promise<CatalogService> {
  const {logger} = log
  const clock = overrides.clock ?? (() => new Date())
  const source = overrides.source ?? createSource(config.content)
  const caches = createDemandCaches(config.caches)
  const limits = overrides.limits ?? DEFAULT_LIMITS
  const bodies = bodyGate(limits.maxBodiesInFlight)
  const podping =
    config.podping &&
    createPodpingAnnouncer({
      ...config.podping,
      feedUrl: config.feedUrl,
      log: logger.child({component: 'podping'}),
      clock,
    })
  const leftOut = createLeftOutItems(logger.child({component: 'left-out'}))
  const metrics = createMetrics({
    requestBodiesInFlight: bodies.inFlight,
    outputItemsLeftOut: () => leftOut.of(store.current()).length,
    store: () => store,
    clock,
    droppedLogLines: log.droppedLines,
    cacheBytes: () => ({pages: caches.pages.calculatedSize, variants: caches.variants.calculatedSize}),
    podpingAnnouncements: podping && (() => podping.status().counts),
  })

  // A SNAPSHOT_DIR that can never work is a configuration error, said in one line before anything
  // starts; one that refuses writes now (read-only, full) is served through, said once and retried.
  const directoryProblem = config.snapshotDirectory && (await snapshotDirectoryProblem(config.snapshotDirectory))
  if (directoryProblem && 'stop' in directoryProblem) throw new StartFailure(directoryProblem.stop)
  const refusedAtStart = directoryProblem ? directoryProblem.refused : undefined
  if (refusedAtStart)
    logger.warn(
      `SNAPSHOT_DIR: cannot write in ${JSON.stringify(config.snapshotDirectory)} (${refusedAtStart}); serving without saving the snapshot, the CDN purge queue kept in memory, trying the directory again every 5 s`,
    )

  // Redis first: the first snapshot's purge waits until every replica serves it.
  const redis = config.redis
    ? await connectReplicas(config.redis, overrides.replicaId ?? `${hostname()}:${process.pid}`)
    : undefined
  const edge: EdgePurging | undefined =
    config.edge &&
    createEdgePurging({
      ...overrides.edge,
      config: config.edge,
      directory: config.snapshotDirectory,
      refusedAtStart,
      logger: logger.child({component: 'edge'}),
      metrics: registerEdgeMetrics(metrics.registry, () => edge?.status()),
      beforeSend: async (version) => {
        if (redis && version !== null) await redis.servedVersions.allServe(version)
      },
    })
  const saved = config.snapshotDirectory
    ? {file: openSnapshotFile(config.snapshotDirectory, bytesDependOn(config)), directory: config.snapshotDirectory}
    : undefined
  const saver =
    saved &&
    createSnapshotSaver({
      ...saved,
      logger,
      probe: () => probeDirectory(saved.directory),
      refusedAtStart,
    })
  const listenStreams = createListenStreams({publicBaseUrl: config.publicBaseUrl, logger})
  const clientAddress = clientAddressResolver(config.trustProxy)
  const eventStreams = createEventStreams({
    current: () => store.current(),
    publicBaseUrl: config.publicBaseUrl,
    clientOf: (request) => rateLimitKey(clientAddress(request)),
    limits: {maxStreams: config.eventStreamsMax, ...overrides.eventStreams},
  })
  const publish = createPublishPath({
    logger,
    metrics,
    saver,
    replicas: redis,
    edge,
    agents: listenStreams,
    events: eventStreams,
    feedPinger:
      config.websubHub || config.pubnotifyUrl
        ? createFeedPinger({
            feedUrl: config.feedUrl,
            hubUrl: config.websubHub,
            pubnotifyUrl: config.pubnotifyUrl,
            log: logger.child({component: 'websub'}),
          })
        : undefined,
    podping,
  })

  const builder = catalogSnapshotBuilder({
    source,
    config,
    clock,
    caches,
    keying: edge?.keying,
    sharedHistory: redis?.sharedHistory,
    staticExport: overrides.staticExport,
    leftOut,
    saved,
    logger: logger.child({component: 'builder'}),
  })
  // A release is published as a webhook naming the episodes would be: rebuilt, purged exactly, pinged.
  const releases = createReleaseTimer(clock, (documentIds) =>
    publish.accepted(
      documentIds.flatMap((id) => documentChangeOf(id, 'episode') ?? []),
      store,
    ),
  )
  const guard = guardMassDeletion(edge ? edge.markBuilds(builder) : builder, {
    clock,
    confirmAfterMs: config.massDeletionConfirmMs,
  })
  const firstBuildStartedAt = clock()
  const store: SnapshotStore = await createSnapshotStore(guard.build, {
    ...overrides.store,
    clock,
    onBuild: (outcome) => {
      publish.built(outcome, store.current())
      if (outcome.ok) releases.arm(store.current())
      overrides.onBuild?.(outcome)
    },
  }).catch((error: unknown) => {
    void redis?.close()
    edge?.close()
    throw new StartFailure(describeStartFailure(error, config.content), {cause: error})
  })
  // The restored snapshot is the saved file: the saver writes only what comes after it.
  if (store.status().saved?.savedAt) saver?.alreadySaved(store.current())
  publish.served(store.current(), firstBuildStartedAt)
  releases.arm(store.current())
  redis?.serve(store)

  const rereadAll = (reason: string) => () => {
    logger.info(`re-reading the catalog: ${reason}`)
    store.refresh().catch(() => undefined) // recorded, logged and retried by the store
  }
  const stopWatching =
    source === overrides.source || config.content.kind !== 'embedded'
      ? () => undefined
      : watchDatasetFile(config.content.datasetFile)
  const reconcileTimer =
    config.reconcileIntervalSeconds > 0
      ? setInterval(rereadAll('reconcile timer'), config.reconcileIntervalSeconds * 1000).unref()
      : undefined

  const {server, shutDown} = createCatalogServer({
    store,
    config,
    sourceDescription: source.description,
    clock,
    logger,
    metrics,
    limits,
    bodies,
    rateLimitStore: redis?.counterStore,
    onContentChange: (change) => publish.accepted([change], store),
    edgeStatus: edge ? () => edge.status() : undefined,
    leftOut: () => leftOut.of(store.current()),
    ready: () => readiness(store.status().saved),
    snapshotWriteError: saver && (() => saver.writeError()),
    podpingStatus: podping && (() => podping.status()),
    listenStreams,
    eventStreams,
  })

  return {
    store,
    edge,
    sourceDescription: source.description,
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen({port: config.port, host: config.host, reusePort: config.reusePort}, () => {
          server.off('error', reject)
          const address = server.address()
          if (address === null || typeof address === 'string') return reject(new Error('expected a TCP address'))
          resolve(address)
          prepareAfterListening()
        })
      }),
    confirmMassDeletion() {
      logger.warn('SIGHUP: re-reading the catalog and serving it whatever it drops')
      guard.confirm()
      store.refresh().catch(() => undefined)
    },
    async close(timeoutMs) {
      const deadline = Date.now() + timeoutMs
      stopWatching()
      clearInterval(reconcileTimer)
      releases.close()
      // The build a last webhook started, then the newest snapshot saved, so the next start serves
      // what this one served, never older: begun now, while clients drain, and again after the
      // drain for what a last request started, in a share of the timeout the drain cannot take.
      const persist = () => store.settled().then(() => saver?.flush())
      const saving = persist()
      // A listen stream never ends by itself: ended gracefully first, it holds no connection open.
      await listenStreams.close()
      eventStreams.close()
      await shutDown(Math.max(0, deadline - Date.now() - Math.min(SAVE_RESERVE_MS, timeoutMs / 4)))
      store.close()
      await within(saving.then(persist), deadline - Date.now())
      // A write under way keeps its file open: it settles first, however short the timeout was.
      await within(saver?.close(), Math.max(deadline - Date.now(), WRITE_SETTLE_MS))
      edge?.close()
      await redis?.close()
    },
  }

  // Once serving, so that a restored snapshot answers at once and the first edit is still fast;
  // then the site documents (sitemaps of every item), one piece of start-up work at a time.
  function prepareAfterListening(): void {
    whileBuilding(async () => source.prepare?.())
      .catch((error: unknown) =>
        logger.warn({err: error}, `could not prepare ${source.description}; the first edit will read it`),
      )
      .then(() => store.current().warm())
      .catch(() => undefined) // a request builds what it asks for
  }

  // An edit of the dataset file rebuilds the documents it touched; a file that cannot be read is
  // left to the store, which keeps serving the last good snapshot and retries.
  function watchDatasetFile(file: string): () => void {
    return watchFile(file, () => {
      source.changedDocuments?.().then(
        (touched) => {
          const settingsChanged = touched.some((document) => isPodcastSettingsChange(document.id, document.type))
          const changes = settingsChanged
            ? ['all' as const]
            : touched.flatMap((document) => documentChangeOf(document.id, document.type) ?? [])
          if (changes.length > 0) publish.accepted(changes, store)
        },
        rereadAll(`${file} changed and could not be read`),
      )
    })
  }

  // Changes another replica announces before the first snapshot is served wait for it.
  async function connectReplicas(options: NonNullable<Config['redis']>, replicaId: string) {
    let heard: ContentChange[] | undefined = []
    let served: SnapshotStore | undefined
    const connected = await connectRedis({
      ...options,
      replicaId,
      onRemoteChange: (change) => (served ? publish.heardFromReplica(change, served) : heard?.push(change)),
      onResubscribed: () => {
        logger.info('re-reading the catalog: Redis subscription restored (changes announced meanwhile were missed)')
        served?.refresh().catch(() => undefined)
      },
      logger: logger.child({component: 'redis'}),
    }).catch((error: unknown) => {
      throw new StartFailure(
        `REDIS_URL: ${error instanceof Error ? error.message : String(error)}. Start Redis or correct REDIS_URL.`,
        {cause: error},
      )
    })
    return {
      ...connected,
      /** From now on changes from other replicas rebuild `store`; those heard meanwhile do now. */
      serve(store: SnapshotStore) {
        served = store
        for (const change of heard ?? []) publish.heardFromReplica(change, store)
        heard = undefined
      },
    }
  }
}

/**
 * What the served bytes depend on besides the content and the code (the saved file's key holds
 * `codeDigest()`, which covers the package version through the lock file): a snapshot saved under
 * other settings is not reused.
 */
function bytesDependOn(config: Config) {
  return {
    publicBaseUrl: config.publicBaseUrl,
    siteUrl: config.siteUrl,
    feedUrl: config.feedUrl,
    images: config.images,
    content: config.content,
  }
}

/** The share of the shutdown timeout kept for the last save, at most: the drain of clients gets the rest. */
const SAVE_RESERVE_MS = 2000
/** How long a save already writing is waited for at the end of a shutdown, whatever the timeout. */
const WRITE_SETTLE_MS = 1000

/** Resolves when `work` settles or `ms` have passed, whichever is first; never rejects. */
async function within(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    work?.catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms)))),
  ])
  clearTimeout(timer)
}

/** Not ready while the first read is held, or while only a snapshot saved by other code is served. */
function readiness(saved: StoreStatus['saved']): Readiness {
  if (saved?.firstRead === 'held')
    return {
      ready: false,
      detail:
        'The first read of the source is held by the mass-deletion guard (it would drop most of the catalog); the saved snapshot is served meanwhile. See /status.',
    }
  if (saved?.behindEdge && saved.firstRead !== 'done' && saved.savedAt)
    return {
      ready: false,
      detail:
        'The source has not been read yet, and the saved snapshot served meanwhile is older than what the CDN was last told; the source is retried. See /status.',
    }
  if (saved?.otherCode && saved.firstRead !== 'done')
    return {
      ready: false,
      detail:
        'The source has not been read yet, and the saved snapshot served meanwhile was written by other code (an earlier deploy); the source is retried. See /status.',
    }
  return {ready: true}
}
