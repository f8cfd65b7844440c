import type {Logger} from 'pino'
import type {Registry} from 'prom-client'
import type {EdgeConfig} from '../config.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import type {BuildResult} from '../snapshot/build-result.ts'
import type {Restored} from '../snapshot/restored-start.ts'
import {cloudflareAdapter} from './cloudflare-adapter.ts'
import {registerEdgeMetrics} from './edge-metrics.ts'
import {fastlyAdapter} from './fastly-adapter.ts'
import type {PurgeAdapter} from './purge-adapter.ts'
import {planPurge, unchanged} from './purge-plan.ts'
import {PurgeQueue, type PurgeQueueStatus} from './purge-queue.ts'
import {createSurrogateKeying, GLOBAL_KEY, type SurrogateKeying} from '../snapshot/surrogate-keys.ts'
import {varnishAdapter} from './varnish-adapter.ts'

export interface EdgeStatus extends PurgeQueueStatus {
  provider: string
  keyFallbacks: number
  /** Webhook accepted to purge confirmed, for the last purge that followed a webhook. */
  lastWebhookToPurgeMs: number | null
  /** A change has waited for its purge longer than the edge keeps objects: the edge served it stale all that time. */
  purgeOverdue: boolean
}

export interface EdgePurging {
  readonly keying: SurrogateKeying
  /**
   * Before a webhook is acknowledged: notes that the edge is about to be stale. False when that
   * could not be written to disk (the change is still purged, but a crash would lose it): the
   * sender is then asked to deliver again rather than told the change is safe.
   */
  changeAccepted(): boolean
  /**
   * How many changes were accepted so far: read by a build as it starts, it says which accepted
   * changes the build covers (`BuildResult.covers`), whatever the clock's resolution.
   */
  acceptedCount(): number
  /**
   * The snapshot restored at start, checked against what the edge was last told: one older is only
   * a fallback (`behindEdge`), and one the edge holds is what the start's purges are planned from.
   */
  checkRestored(restored: Restored): Restored
  /** The store swapped in `built.snapshot` (it is being served): purge what differs from the last one served. Never throws. */
  snapshotServed(built: BuildResult, buildStartedAt: Date): void
  status(): EdgeStatus
  drained(): Promise<void>
  close(): void
}

function adapterFor(config: EdgeConfig): PurgeAdapter {
  switch (config.provider) {
    case 'varnish':
      return varnishAdapter({urls: config.urls, token: config.token})
    case 'fastly':
      return fastlyAdapter({
        apiUrl: config.apiUrl,
        token: config.token,
        serviceId: config.serviceId,
        softPurge: config.softPurge,
      })
    case 'cloudflare':
      return cloudflareAdapter({apiUrl: config.apiUrl, token: config.token, zoneId: config.zoneId})
  }
}

export interface EdgePurgingOptions {
  config: EdgeConfig
  /** SNAPSHOT_DIR: where the purge queue outlives the process. */
  directory?: string
  adapter?: PurgeAdapter
  retry?: {initialDelayMs: number; maxDelayMs: number}
  /** Where the purges' metrics are added (edge-metrics.ts). */
  registry?: Registry
  /** Waited for before each purge (replicas sharing Redis: until every one serves the version). */
  beforeSend?: (version: string | null) => Promise<unknown>
  writeRetryMs?: number
  /** Why SNAPSHOT_DIR could not be written at start: the queue starts in memory, already reported. */
  refusedAtStart?: string | undefined
  /** Failed purges, the queue file's troubles, a saved snapshot older than the edge. */
  logger?: Logger
  clock?: () => number
}

/**
 * Keeps a CDN in step with the snapshots served: each swap is compared with the previous one and
 * exactly the keys whose documents changed are queued. On start, the first snapshot is reconciled
 * with what the queue's file says the edge holds; when that is unknown, everything is purged.
 */
export function createEdgePurging(options: EdgePurgingOptions): EdgePurging {
  const keying = createSurrogateKeying(options.config.provider, {
    edgeMaxAgeSeconds: options.config.queue.edgeMaxAgeSeconds,
  })
  let lastServed: Snapshot | undefined
  let lastWebhookToPurgeMs: number | null = null
  let acceptedAt: number | undefined
  let lastAcceptedAt: number | undefined
  const clock = options.clock ?? Date.now
  // The restored snapshot whose version the edge holds: the start's purges are planned from it.
  let edgeBaseline: Snapshot | undefined
  const queue = new PurgeQueue({
    adapter: options.adapter ?? adapterFor(options.config),
    directory: options.directory,
    maxKeys: options.config.queue.maxKeys,
    // Past the edge TTL the CDN has let every object go, so an unconfirmed purge no longer matters.
    giveUpAfterMs: options.config.queue.edgeMaxAgeSeconds * 1000,
    retry: options.retry,
    beforeSend: options.beforeSend,
    logger: options.logger,
    writeRetryMs: options.writeRetryMs,
    refusedAtStart: options.refusedAtStart,
    clock,
    onPurged: (outcome) => {
      metrics?.purged(outcome)
      if (acceptedAt !== undefined && queue.status().depth === 0) {
        lastWebhookToPurgeMs = clock() - acceptedAt
        metrics?.webhookToPurge(lastWebhookToPurgeMs)
        acceptedAt = undefined
      }
    },
  })
  const status = (): EdgeStatus => {
    const queued = queue.status()
    const purgeOverdue =
      queued.oldestUnpurgedAgeSeconds !== null &&
      queued.oldestUnpurgedAgeSeconds >= options.config.queue.edgeMaxAgeSeconds
    return {
      provider: options.config.provider,
      keyFallbacks: keying.fallbacks,
      lastWebhookToPurgeMs,
      purgeOverdue,
      ...queued,
    }
  }
  const metrics = options.registry && registerEdgeMetrics(options.registry, status)
  return {
    keying,
    changeAccepted() {
      lastAcceptedAt = clock()
      acceptedAt ??= lastAcceptedAt
      return queue.changeAccepted()
    },
    acceptedCount: () => queue.acceptedCount(),
    // A restored snapshot covers no change accepted here; the store's first read after it says what it covers (acceptedCount).
    checkRestored(restored) {
      const saved = restored.snapshot
      if (!saved) return restored
      const version = saved.built.snapshot.version
      const edgeHolds = queue.knownEdgeVersion()
      // Saved before the newest version the edge was told of (a crash before the save): serving
      // it would take clients back in time, so it waits as a fallback for a source that fails.
      if (edgeHolds !== null && edgeHolds !== version) {
        options.logger?.warn(
          `the saved snapshot (version ${version}) is older than what the CDN was last told (${edgeHolds}); reading the source before serving`,
        )
        return {...restored, snapshot: {...saved, behindEdge: true}}
      }
      // Only one the store serves at once: a fallback (other code, damaged items) is read past.
      if (edgeHolds !== null && !saved.otherCode && !saved.partial) edgeBaseline = saved.built.snapshot
      return restored
    },
    snapshotServed(built, buildStartedAt) {
      const {snapshot} = built
      const previous = lastServed
      lastServed = snapshot
      if (previous === snapshot) return
      // A build that says nothing of what it covers (the restored snapshot), by the clock: a change accepted in the build's millisecond counts as not covered.
      const accepted = queue.acceptedCount()
      const covered =
        built.covers ??
        (lastAcceptedAt !== undefined && lastAcceptedAt >= buildStartedAt.getTime() ? accepted - 1 : accepted)
      const baseline = edgeBaseline
      edgeBaseline = undefined // read once, by the first snapshot served and the one after it
      if (!previous) {
        // The restored snapshot the edge already holds purges nothing; any other first snapshot
        // purges everything unless the file says the edge holds exactly its version.
        const known = snapshot === baseline ? queue.knownEdgeVersion() : queue.knownPurgedVersion()
        if (snapshot === baseline) edgeBaseline = baseline
        queue.enqueue(known === snapshot.version ? [] : [GLOBAL_KEY], snapshot.version, covered)
        return
      }
      // The edge may hold any site document of the restored snapshot, built here or not: all are compared.
      if (previous === baseline && !unchanged(previous, snapshot))
        for (const path of previous.sitePaths) previous.site(path)
      queue.enqueue(planPurge(previous, snapshot, keying), snapshot.version, covered)
    },
    status,
    drained: () => queue.drained(),
    close: () => queue.close(),
  }
}
