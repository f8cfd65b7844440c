import type {EdgeConfig} from '../config.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {cloudflareAdapter} from './cloudflare-adapter.ts'
import {fastlyAdapter} from './fastly-adapter.ts'
import type {PurgeAdapter, PurgeFailure} from './purge-adapter.ts'
import {planPurge} from './purge-plan.ts'
import {PurgeQueue, type PurgeQueueStatus} from './purge-queue.ts'
import {createSurrogateKeying, GLOBAL_KEY, type SurrogateKeying} from '../snapshot/surrogate-keys.ts'
import {varnishAdapter} from './varnish-adapter.ts'

export interface EdgeMetrics {
  purged(outcome: {keys: number}): void
  webhookToPurge(milliseconds: number): void
}

export interface EdgeStatus extends PurgeQueueStatus {
  provider: string
  keyFallbacks: number
  /** Webhook accepted to purge confirmed, for the last purge that followed a webhook. */
  lastWebhookToPurgeMs: number | null
}

export interface EdgePurging {
  readonly keying: SurrogateKeying
  /** Before a webhook is acknowledged: durably notes that the edge is about to be stale. */
  changeAccepted(): void
  /** The store swapped in `snapshot` (it is being served): purge what differs from the last one served. */
  snapshotServed(snapshot: Snapshot, buildStartedAt: Date): void
  status(): EdgeStatus
  drained(): Promise<void>
  close(): void
}

function adapterFor(config: EdgeConfig): PurgeAdapter {
  switch (config.provider) {
    case 'varnish':
      return varnishAdapter({urls: config.urls, token: config.token})
    case 'fastly':
      return fastlyAdapter({apiUrl: config.apiUrl, token: config.token, serviceId: config.serviceId, softPurge: config.softPurge})
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
  onFailure?: (error: PurgeFailure, willRetryInMs: number | undefined) => void
  metrics?: EdgeMetrics
  /** Waited for before each purge (replicas sharing Redis: until every one serves the version). */
  beforeSend?: (version: string | null) => Promise<unknown>
}

/**
 * Keeps a CDN in step with the snapshots served: each swap is compared with the previous one and
 * exactly the keys whose documents changed are queued. On start, the first snapshot is reconciled
 * with what the queue's file says the edge holds; when that is unknown, everything is purged.
 */
export function createEdgePurging(options: EdgePurgingOptions): EdgePurging {
  const keying = createSurrogateKeying(options.config.provider, {edgeMaxAgeSeconds: options.config.queue.edgeMaxAgeSeconds})
  let lastServed: Snapshot | undefined
  let lastWebhookToPurgeMs: number | null = null
  let acceptedAt: number | undefined
  const queue = new PurgeQueue({
    adapter: options.adapter ?? adapterFor(options.config),
    directory: options.directory,
    maxKeys: options.config.queue.maxKeys,
    // Past the edge TTL the CDN has let every object go, so an unconfirmed purge no longer matters.
    giveUpAfterMs: options.config.queue.edgeMaxAgeSeconds * 1000,
    retry: options.retry,
    onFailure: options.onFailure,
    beforeSend: options.beforeSend,
    onPurged: (outcome) => {
      options.metrics?.purged(outcome)
      if (acceptedAt !== undefined && queue.status().depth === 0) {
        lastWebhookToPurgeMs = Date.now() - acceptedAt
        options.metrics?.webhookToPurge(lastWebhookToPurgeMs)
        acceptedAt = undefined
      }
    },
  })
  return {
    keying,
    changeAccepted() {
      acceptedAt ??= Date.now()
      queue.changeAccepted()
    },
    snapshotServed(snapshot, buildStartedAt) {
      const previous = lastServed
      lastServed = snapshot
      if (previous === snapshot) return
      if (!previous) {
        const known = queue.knownPurgedVersion()
        queue.enqueue(known === snapshot.version ? [] : [GLOBAL_KEY], snapshot.version, buildStartedAt.getTime())
        return
      }
      queue.enqueue(planPurge(previous, snapshot, keying), snapshot.version, buildStartedAt.getTime())
    },
    status: () => ({provider: options.config.provider, keyFallbacks: keying.fallbacks, lastWebhookToPurgeMs, ...queue.status()}),
    drained: () => queue.drained(),
    close: () => queue.close(),
  }
}
