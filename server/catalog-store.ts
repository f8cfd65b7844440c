import type {Logger} from 'pino'
import type {Registry} from 'prom-client'
import {createCatalogBuilder, type CatalogBuilder} from './catalog-builder.ts'
import type {Clock} from './clock.ts'
import type {Config} from './config.ts'
import {createSource} from './content/create-source.ts'
import type {ContentSource} from './content/source.ts'
import {createEdgePurging, type EdgePurging, type EdgePurgingOptions} from './edge/edge-purging.ts'
import {createLeftOutItems, type LeftOutItems} from './left-out-items.ts'
import {connectReplicas, type Replicas} from './scaling/replicas.ts'
import {createDemandCaches, type DemandCaches} from './snapshot/demand-caches.ts'
import {guardMassDeletion, type MassDeletionGuard} from './snapshot/mass-deletion-guard.ts'
import {bytesDependOn, openSnapshotFile} from './snapshot/saved-snapshot.ts'
import {createSnapshotStore, type SnapshotStore, type StoreOptions} from './snapshot/store.ts'
import {createSnapshotSaver, type SnapshotSaver} from './snapshot-saver.ts'
import {checkSnapshotDirectory, describeRedisFailure, describeStartFailure} from './start-failure.ts'
import {StartFailure} from './errors.ts'

/** What a test replaces up to the first snapshot; `npm start` replaces nothing. */
export interface CatalogStoreOverrides {
  source?: ContentSource
  clock?: Clock
  store?: Pick<StoreOptions, 'retryDelayMs' | 'maxRetryDelayMs' | 'maxDocumentsPerBuild'>
  /** The CDN's API (a stand-in), and how soon a failed purge and a failed queue write are retried. */
  edge?: Pick<EdgePurgingOptions, 'adapter' | 'retry' | 'writeRetryMs'>
  /** How this replica names itself to the others in Redis. */
  replicaId?: string
  /** Site documents as `npm run export` writes them (the static export's test compares the two). */
  staticExport?: boolean
}

/** The store serving its first snapshot, and the parts it was built with that serving goes on with. */
export interface CatalogStore {
  source: ContentSource
  clock: Clock
  caches: DemandCaches
  store: SnapshotStore
  /** When the first build started: the start's purge counts the changes accepted before it as covered. */
  firstBuildStartedAt: Date
  /** With REDIS_URL: one rate limit, the changes and versions the replicas tell each other. */
  replicas: Replicas | undefined
  /** With CDN_PURGE: the purge queue, read back from SNAPSHOT_DIR. */
  edge: EdgePurging | undefined
  /** With SNAPSHOT_DIR: the saved snapshot, which follows the served one. */
  saver: SnapshotSaver | undefined
  /** What the outputs left out of each snapshot. */
  leftOut: LeftOutItems
  /** An operator's confirmation (SIGHUP) that a re-read dropping most of the catalog is meant. */
  confirmMassDeletion(): void
}

/**
 * Everything up to the first snapshot served, in order: SNAPSHOT_DIR checked (a path that can never
 * work stops the start), Redis connected (the first snapshot's purge waits until every replica
 * serves it), the CDN purge queue read back, then the store over the builder, with the snapshot
 * saved in SNAPSHOT_DIR to start from and behind the mass-deletion guard. Rejects with a
 * StartFailure when there is nothing to serve.
 */
export async function openCatalogStore(
  config: Config,
  logger: Logger,
  registry: Registry,
  overrides: CatalogStoreOverrides = {},
): Promise<CatalogStore> {
  const component = (name: string) => logger.child({component: name})
  const clock = overrides.clock ?? (() => new Date())
  const source = overrides.source ?? createSource(config.content)
  const caches = createDemandCaches(config.caches)
  const directory = config.snapshotDirectory
  const refusedAtStart = directory && (await checkSnapshotDirectory(directory, component('snapshot-dir')))
  const replicas =
    config.redis &&
    (await connectReplicas({...config.redis, replicaId: overrides.replicaId, logger: component('redis')}).catch(
      (error: unknown) => {
        throw new StartFailure(describeRedisFailure(error), {cause: error})
      },
    ))
  const edge =
    config.edge &&
    createEdgePurging({
      ...overrides.edge,
      config: config.edge,
      directory,
      refusedAtStart,
      registry,
      logger: component('edge'),
      beforeSend: async (version) => {
        if (replicas && version !== null) await replicas.servedVersions.allServe(version)
      },
    })
  const saved = directory ? {file: openSnapshotFile(directory, bytesDependOn(config)), directory} : undefined
  const leftOut = createLeftOutItems(component('left-out'))
  const builder = createCatalogBuilder({
    source,
    config,
    clock,
    caches,
    keying: edge?.keying,
    acceptedCount: edge && (() => edge.acceptedCount()),
    sharedHistory: replicas?.sharedHistory,
    staticExport: overrides.staticExport,
    leftOut,
    saved,
    logger: component('builder'),
  })
  const firstBuildStartedAt = clock()
  const {store, guard} = await startStore(builder, edge, {
    clock,
    confirmAfterMs: config.massDeletionConfirmMs,
    store: overrides.store,
  }).catch((error: unknown) => {
    void replicas?.close()
    edge?.close()
    throw new StartFailure(describeStartFailure(error, config.content), {cause: error})
  })
  const saver = saved && createSnapshotSaver({...saved, logger, refusedAtStart})
  // The restored snapshot is the saved file: the saver writes only what comes after it.
  if (store.status().saved?.savedAt) saver?.alreadySaved(store.currentBuild())
  return {
    source,
    clock,
    caches,
    store,
    firstBuildStartedAt,
    replicas,
    edge,
    saver,
    leftOut,
    confirmMassDeletion() {
      logger.warn('SIGHUP: re-reading the catalog and serving it whatever it drops')
      guard.confirm()
      store.refresh().catch(() => undefined)
    },
  }
}

/**
 * The saved snapshot restored, and checked against what the CDN was last told; then the store over
 * the builder (behind the mass-deletion guard),
 * serving what was restored or reading the source first when that is only a fallback.
 */
async function startStore(
  builder: CatalogBuilder,
  edge: EdgePurging | undefined,
  options: {clock: Clock; confirmAfterMs: number; store: CatalogStoreOverrides['store']},
): Promise<{store: SnapshotStore; guard: MassDeletionGuard}> {
  const saved = await builder.restore()
  const restored = edge ? edge.checkRestored(saved) : saved
  const guard = guardMassDeletion(builder.build, {
    clock: options.clock,
    confirmAfterMs: options.confirmAfterMs,
    restored: restored.snapshot?.built.snapshot,
  })
  const store = await createSnapshotStore(guard.build, {...options.store, clock: options.clock, restored})
  return {store, guard}
}
