import {Counter, Gauge, Histogram, type Registry} from 'prom-client'
import type {PurgeQueueStatus} from './purge-queue.ts'

/** What edge purging observes as it goes (the rest is read from its status at scrape time). */
interface EdgeMetrics {
  purged(outcome: {keys: number}): void
  webhookToPurge(milliseconds: number): void
}

/** The CDN purge figures in Prometheus: sent and failed purges, keys per purge, the queue, and how long an edit takes to be purged. */
export function registerEdgeMetrics(
  registry: Registry,
  status: () => (PurgeQueueStatus & {purgeOverdue: boolean}) | undefined,
): EdgeMetrics {
  const registers = [registry]
  new Counter({
    name: 'catalog_cdn_purges_total',
    help: 'Purge calls to the CDN by result (a batch of keys retried counts once per attempt).',
    labelNames: ['result'],
    registers,
    collect() {
      const current = status()
      this.reset()
      if (!current) return
      this.inc({result: 'sent'}, current.purgesSent)
      this.inc({result: 'failed'}, current.purgesFailed)
    },
  })
  new Gauge({
    name: 'catalog_cdn_purge_queue_keys',
    help: 'Surrogate keys waiting to be purged; bounded by PURGE_QUEUE_MAX_KEYS.',
    registers,
    collect() {
      this.set(status()?.depth ?? 0)
    },
  })
  new Gauge({
    name: 'catalog_cdn_oldest_unpurged_age_seconds',
    help: 'Age of the oldest change not yet confirmed purged by the CDN (0 when none).',
    registers,
    collect() {
      this.set(status()?.oldestUnpurgedAgeSeconds ?? 0)
    },
  })
  new Gauge({
    name: 'catalog_cdn_purge_dead_letters',
    help: 'Purges given up (kept for /status, at most 20).',
    registers,
    collect() {
      this.set(status()?.deadLetters.length ?? 0)
    },
  })
  new Gauge({
    name: 'catalog_cdn_purge_queue_writable',
    help: 'Whether the purge queue file can be written (0: the queue lives in memory only, and a crash loses it).',
    registers,
    collect() {
      this.set(status()?.writable === false ? 0 : 1)
    },
  })
  new Gauge({
    name: 'catalog_cdn_purge_overdue',
    help: 'Whether a change has waited for its purge longer than the edge TTL (1: the edge served it stale all that time).',
    registers,
    collect() {
      this.set(status()?.purgeOverdue ? 1 : 0)
    },
  })
  const keysPerPurge = new Histogram({
    name: 'catalog_cdn_keys_per_purge',
    help: 'Surrogate keys in each confirmed purge.',
    buckets: [1, 2, 5, 10, 20, 50, 100, 500, 1000, 10000],
    registers,
  })
  const webhookToPurge = new Histogram({
    name: 'catalog_cdn_webhook_to_purge_seconds',
    help: 'From a webhook accepted to the CDN confirming the purge of what it changed.',
    buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  })
  return {
    purged: ({keys}) => keysPerPurge.observe(keys),
    webhookToPurge: (milliseconds) => webhookToPurge.observe(milliseconds / 1000),
  }
}
