import {createCatalogServer} from '../../server/catalog-server.ts'
import type {ServerLimits} from '../../server/http/server.ts'
import {loadConfig, type Config} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import type {ContentSource} from '../../server/content/source.ts'
import {createLogger} from '../../server/observability/logger.ts'
import {createMetrics, type CatalogMetrics} from '../../server/observability/metrics.ts'
import {catalogSnapshotBuilder, type Clock} from '../../server/catalog-builder.ts'
import {guardMassDeletion} from '../../server/snapshot/mass-deletion-guard.ts'
import {createDemandCaches} from '../../server/snapshot/demand-caches.ts'
import {createSnapshotStore, type BuildOutcome, type SnapshotStore, type StoreOptions} from '../../server/snapshot/store.ts'
import {refreshFor} from '../../server/app.ts'
import {createEdgePurging, type EdgeMetrics, type EdgePurging, type EdgePurgingOptions} from '../../server/edge/edge-purging.ts'
import {registerEdgeMetrics} from '../../server/edge/edge-metrics.ts'
import type {Registry} from 'prom-client'

export const SAMPLE_DATASET = 'data/catalog.ndjson'

export interface TestServer {
  baseUrl: string
  store: SnapshotStore
  config: Config
  /** With `edge`: the purge queue, to wait until it has nothing left. */
  edge: EdgePurging | undefined
  /** Errors the app reported while answering; a passing test expects none. */
  loggedErrors: unknown[]
  /** With `observed`: the JSON log lines written so far. */
  logLines: string[]
  close(): Promise<void>
}

/**
 * Starts the real application on an ephemeral loopback port. `PUBLIC_BASE_URL` is fixed, so
 * documents from servers on different ports can be compared byte for byte.
 */
export async function startTestServer(
  options: {
    source?: ContentSource
    environment?: Record<string, string>
    clock?: Clock
    store?: StoreOptions
    limits?: ServerLimits
    /** Request logs (kept in `logLines`) and `/metrics`, as `npm start` has them. */
    observed?: boolean
    /** Purges a CDN as `npm start` does with CDN_PURGE set (the environment must configure one). */
    edge?: Omit<EdgePurgingOptions, 'config'>
  } = {},
): Promise<TestServer> {
  // A quota no test reaches unless it sets its own.
  const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test', RATE_LIMIT_QUOTA: '1000000', ...options.environment})
  const source = options.source ?? createEmbeddedFileSource(SAMPLE_DATASET)
  const clock = options.clock ?? (() => new Date())
  const logLines: string[] = []
  const caches = createDemandCaches(config.caches)
  const cacheBytes = () => ({pages: caches.pages.calculatedSize, variants: caches.variants.calculatedSize})
  let edgeMetrics: EdgeMetrics | undefined
  const register = (registry: Registry) => void (edgeMetrics = config.edge && registerEdgeMetrics(registry, () => edge?.status()))
  const metrics: CatalogMetrics | undefined = options.observed ? createMetrics({store: () => store, clock, cacheBytes, register}) : undefined
  const logger = options.observed ? createLogger('info', {write: (line: string) => void logLines.push(line)}) : undefined
  const edge = options.edge && config.edge ? createEdgePurging({metrics: edgeMetrics, ...options.edge, config: config.edge}) : undefined
  const {build} = guardMassDeletion(catalogSnapshotBuilder({source, config, clock, caches, keying: edge?.keying}), {clock, confirmAfterMs: config.massDeletionConfirmMs})
  const firstBuildStartedAt = clock()
  const onBuild = (outcome: BuildOutcome) => {
    if (outcome.ok) edge?.snapshotServed(store.current(), outcome.startedAt)
    metrics?.recordBuild(outcome)
    options.store?.onBuild?.(outcome)
  }
  const store: SnapshotStore = await createSnapshotStore(build, {clock, ...options.store, onBuild})
  edge?.snapshotServed(store.current(), firstBuildStartedAt)
  const errors: unknown[] = []
  const {server} = createCatalogServer({
    store,
    config,
    clock,
    sourceDescription: source.description,
    logError: (error) => errors.push(error),
    limits: options.limits,
    logger,
    metrics,
    edgeStatus: edge ? () => edge.status() : undefined,
    onContentChange: edge
      ? (change) => {
          edge.changeAccepted()
          refreshFor(store, change)
        }
      : undefined,
  })
  server.listen(0, '127.0.0.1')
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    loggedErrors: errors,
    logLines,
    store,
    config,
    edge,
    close: () =>
      new Promise<void>((resolve, reject) => {
        store.close()
        edge?.close()
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
