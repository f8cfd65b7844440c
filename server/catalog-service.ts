import type {AddressInfo} from 'node:net'
import {prepareAfterListening} from './catalog-builder.ts'
import {createCatalogServer} from './catalog-server.ts'
import {openCatalogStore, type CatalogStoreOverrides} from './catalog-store.ts'
import type {Config} from './config.ts'
import {watchDatasetFile} from './content/dataset-file-watch.ts'
import type {EdgePurging} from './edge/edge-purging.ts'
import {createPodpingAnnouncer} from './feed/podping.ts'
import {createFeedPinger} from './feed/websub.ts'
import {clientAddressResolver, rateLimitKey} from './http/client-address.ts'
import {bodyGate} from './http/connection-guard.ts'
import {createEventStreams, type EventStreamLimits} from './http/event-streams.ts'
import {savedSnapshotReadiness} from './http/health.ts'
import {DEFAULT_LIMITS, type ServerLimits} from './http/server.ts'
import {createListenStreams} from './mcp/listen-streams.ts'
import type {ServerLog} from './observability/logger.ts'
import {createMetrics, createRegistry} from './observability/metrics.ts'
import {createPublishPath} from './publish-path.ts'
import {shutDownInOrder} from './shutdown.ts'
import type {BuildOutcome, SnapshotStore} from './snapshot/store.ts'

/** What a test replaces; `npm start` replaces nothing. */
export interface CatalogServiceOverrides extends CatalogStoreOverrides {
  limits?: ServerLimits
  /** Hears every build after the publish path has run (tests wait on it). */
  onBuild?: (outcome: BuildOutcome) => void
  /** Event-stream bounds a test can make small (the queue a stalled reader may fill, the heartbeat). */
  eventStreams?: Partial<EventStreamLimits>
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

/**
 * Everything `npm start` runs, assembled in the order it is built: the catalog store up to its first
 * snapshot (catalog-store.ts), what each served snapshot is told to, what happens after each
 * accepted change and build (publish-path.ts), the HTTP server, and the watcher that brings edits.
 * Reads no environment and listens only when asked.
 */
export async function createCatalogService(
  config: Config,
  log: ServerLog,
  overrides: CatalogServiceOverrides = {},
): Promise<CatalogService> {
  const {logger} = log
  const component = (name: string) => logger.child({component: name})
  const registry = createRegistry()
  const catalog = await openCatalogStore(config, logger, registry, overrides)
  const {source, clock, caches, store, replicas, edge, saver, leftOut} = catalog

  const limits = overrides.limits ?? DEFAULT_LIMITS
  const bodies = bodyGate(limits.maxBodiesInFlight)
  const podping =
    config.podping &&
    createPodpingAnnouncer({...config.podping, feedUrl: config.feedUrl, log: component('podping'), clock})
  const metrics = createMetrics({
    store,
    registry,
    clock,
    requestBodiesInFlight: bodies.inFlight,
    outputItemsLeftOut: () => store.current().leftOut().length,
    droppedLogLines: log.droppedLines,
    cacheBytes: () => ({pages: caches.pages.calculatedSize, variants: caches.variants.calculatedSize}),
    podpingAnnouncements: podping && (() => podping.status().counts),
  })
  const listenStreams = createListenStreams({publicBaseUrl: config.publicBaseUrl, logger})
  const clientAddress = clientAddressResolver(config.trustProxy)
  const eventStreams = createEventStreams({
    current: () => store.current(),
    publicBaseUrl: config.publicBaseUrl,
    clientOf: (request) => rateLimitKey(clientAddress(request)),
    limits: {maxStreams: config.eventStreamsMax, ...overrides.eventStreams},
  })
  const {feedUrl, websubHub: hubUrl, pubnotifyUrl} = config
  const pinged = hubUrl || pubnotifyUrl
  const feedPinger = pinged ? createFeedPinger({feedUrl, hubUrl, pubnotifyUrl, log: component('websub')}) : undefined
  const publish = createPublishPath({
    store,
    clock,
    logger: component('publish'),
    metrics,
    leftOut,
    saver,
    replicas,
    edge,
    feedPinger,
    podping,
    agents: listenStreams,
    events: eventStreams,
    reconcileEveryMs: config.reconcileIntervalSeconds * 1000,
  })
  // Given before the first read behind a restored snapshot ends (no await since the store was made).
  store.onBuild((outcome, built) => {
    publish.built(outcome, built)
    overrides.onBuild?.(outcome)
  })
  publish.served(store.currentBuild(), catalog.firstBuildStartedAt)
  replicas?.serve(store, (change) => publish.heardFromReplica(change))
  const watched = source !== overrides.source && config.content.kind === 'embedded' ? config.content : undefined
  const stopWatching = watched && watchDatasetFile(watched.datasetFile, source, publish)

  const http = createCatalogServer({
    store,
    config,
    sourceDescription: source.description,
    clock,
    logger,
    metrics,
    limits,
    bodies,
    rateLimitStore: replicas?.counterStore,
    onContentChange: (change) => publish.accepted([change]),
    edgeStatus: edge ? () => edge.status() : undefined,
    leftOut: () => store.current().leftOut(),
    ready: () => savedSnapshotReadiness(store.status().saved),
    snapshotWriteError: saver && (() => saver.writeError()),
    podpingStatus: podping && (() => podping.status()),
    listenStreams,
    eventStreams,
  })
  return {
    store,
    edge,
    sourceDescription: source.description,
    async listen() {
      const address = await http.listen({port: config.port, host: config.host, reusePort: config.reusePort})
      prepareAfterListening(source, () => store.current(), component('builder'))
      return address
    },
    confirmMassDeletion: () => catalog.confirmMassDeletion(),
    close: (timeoutMs) =>
      shutDownInOrder(timeoutMs, {...catalog, stopWatching, publish, listenStreams, eventStreams, http}),
  }
}
