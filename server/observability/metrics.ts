import type {IncomingMessage, ServerResponse} from 'node:http'
import {collectDefaultMetrics, Counter, Gauge, Histogram, Registry} from 'prom-client'
import {PROBLEM_SEVERITIES, PROBLEM_SOURCES} from '../../catalog/v1/catalog.ts'
import {PODPING_OUTCOMES, type PodpingOutcome} from '../feed/podping.ts'
import type {RequestObserver} from '../http/request-listener.ts'
import {pathOf} from '../http/request-target.ts'
import type {BuildOutcome, SnapshotStore} from '../snapshot/store.ts'
import {RouteLabels} from './route-label.ts'
import type {Clock} from '../clock.ts'

export const METRICS_PATH = '/metrics'

export interface CatalogMetrics {
  /** Counts the request by route and status when its response is done (sent, or cut off by the client). */
  observe: RequestObserver
  recordBuild(outcome: BuildOutcome): void
  /** `GET /metrics` in Prometheus's text format. */
  send(request: IncomingMessage, response: ServerResponse): Promise<void>
  /** Where another module's metrics (the CDN purges') are added. */
  readonly registry: Registry
}

/** A registry with the process's own metrics (memory, CPU, event-loop delay, GC), which modules add theirs to. */
export function createRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({register: registry})
  return registry
}

/** Prometheus metrics (prom-client) of the served snapshot, its builds and the requests, added to `registry`. */
export function createMetrics(options: {
  store: Pick<SnapshotStore, 'current' | 'status'>
  /** Where the metrics are kept (and where the CDN purges' were added): a registry of their own by default. */
  registry?: Registry
  clock?: Clock
  droppedLogLines?: () => number
  cacheBytes?: () => {pages: number; variants: number}
  /** The request bodies being received (the HTTP server's body gate). */
  requestBodiesInFlight?: () => number
  /** Items the served feed and sitemaps left out because they could not be written. */
  outputItemsLeftOut?: () => number
  /** With PODPING_URL: attempts to announce the feed to Podping, by outcome. */
  podpingAnnouncements?: (() => Readonly<Record<PodpingOutcome, number>>) | undefined
}): CatalogMetrics {
  const {
    store,
    registry = createRegistry(),
    clock = () => new Date(),
    droppedLogLines = () => 0,
    cacheBytes = () => ({pages: 0, variants: 0}),
  } = options
  const registers = [registry]

  // Per-request counts are plain integers on the hot path, turned into series at scrape time.
  const responses = new Map<string, Map<number, number>>()
  const revalidated = {not_modified: 0, sent: 0}
  const labels = new RouteLabels(
    (candidate) => candidate === METRICS_PATH || store.current().site(candidate) !== undefined,
  )
  new Counter({
    name: 'catalog_http_requests_total',
    help: 'HTTP responses by route (slugs folded into {slug}) and status code.',
    labelNames: ['route', 'status'],
    registers,
    collect() {
      this.reset()
      for (const [route, byStatus] of responses)
        for (const [status, count] of byStatus) this.inc({route, status}, count)
    },
  })
  new Counter({
    name: 'catalog_http_revalidations_total',
    help: 'GET/HEAD requests carrying If-None-Match or If-Modified-Since, by outcome: not_modified (304) or sent (the full body). The 304 ratio is not_modified over the sum.',
    labelNames: ['outcome'],
    registers,
    collect() {
      this.reset()
      for (const [outcome, count] of Object.entries(revalidated)) if (count > 0) this.inc({outcome}, count)
    },
  })
  const rebuildDuration = new Histogram({
    name: 'catalog_rebuild_duration_seconds',
    help: 'Snapshot builds by kind (full, documents) and result (success, failure).',
    labelNames: ['kind', 'result'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers,
  })
  const rebuildFailures = new Counter({
    name: 'catalog_rebuild_failures_total',
    help: 'Failed snapshot builds by kind; the last good snapshot keeps serving.',
    labelNames: ['kind'],
    registers,
  })
  new Gauge({
    name: 'catalog_snapshot_age_seconds',
    help: 'Seconds since the served snapshot was last built or confirmed from the content source.',
    registers,
    collect() {
      this.set((clock().getTime() - store.status().lastSuccessAt.getTime()) / 1000)
    },
  })
  new Gauge({
    name: 'catalog_documents',
    help: 'Documents in the served snapshot, by collection.',
    labelNames: ['collection'],
    registers,
    collect() {
      for (const [collection, count] of Object.entries(store.current().counts)) this.set({collection}, count)
    },
  })
  new Gauge({
    name: 'catalog_document_problems',
    help: 'Documents in the served snapshot not served as they are in the source, by collection (settings: the podcast settings) and severity: rejected (not served), kept (its last valid version served), warning (served with something left out).',
    labelNames: ['collection', 'severity'],
    registers,
    collect() {
      this.reset()
      for (const collection of PROBLEM_SOURCES)
        for (const severity of PROBLEM_SEVERITIES) this.set({collection, severity}, 0)
      for (const {collection, severity} of store.current().catalog.problems) this.inc({collection, severity})
    },
  })
  new Gauge({
    name: 'catalog_search_index_build_failures',
    help: "The search index's background builds that failed in a row; searches answer 503 until one succeeds (see search_index in /status).",
    registers,
    collect() {
      this.set(store.current().searchIndex.health().consecutiveFailures)
    },
  })

  new Counter({
    name: 'catalog_log_lines_dropped_total',
    help: 'Log lines dropped because stdout did not take them (its reader stalled); the server keeps at most a few MB waiting.',
    registers,
    collect() {
      this.reset()
      this.inc(droppedLogLines())
    },
  })

  new Gauge({
    name: 'catalog_page_cache_bytes',
    help: 'Bytes held by the cache of list pages built for a limit or cursor (compressed variants counted); bounded by PAGE_CACHE_MEGABYTES.',
    registers,
    collect() {
      this.set(cacheBytes().pages)
    },
  })

  new Gauge({
    name: 'catalog_variant_cache_bytes',
    help: "Bytes held by the cache of items' compressed variants, made on first request; bounded by VARIANT_CACHE_MEGABYTES.",
    registers,
    collect() {
      this.set(cacheBytes().variants)
    },
  })

  const {outputItemsLeftOut} = options
  if (outputItemsLeftOut) {
    new Gauge({
      name: 'catalog_output_items_left_out',
      help: 'Items the served feed and sitemaps left out because they could not be written (see left_out in /status).',
      registers,
      collect() {
        this.set(outputItemsLeftOut())
      },
    })
  }

  const {podpingAnnouncements} = options
  if (podpingAnnouncements) {
    new Counter({
      name: 'catalog_podping_announcements_total',
      help: 'Attempts to announce the changed feed to Podping, by outcome: announced (taken), retried (failed, sent again with backoff), given_up (failed, the last attempt; apps still poll the feed).',
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset()
        const counts = podpingAnnouncements()
        for (const outcome of PODPING_OUTCOMES) this.inc({outcome}, counts[outcome])
      },
    })
  }

  const {requestBodiesInFlight} = options
  if (requestBodiesInFlight) {
    new Gauge({
      name: 'catalog_request_bodies_in_flight',
      help: 'Request bodies being received across all clients; at the bound (256) a new one is answered 503 before it is read.',
      registers,
      collect() {
        this.set(requestBodiesInFlight())
      },
    })
  }

  return {
    registry,
    observe(request, response, answered) {
      const status = response.statusCode
      const route = labels.of(pathOf(answered.url))
      let byStatus = responses.get(route)
      if (!byStatus) responses.set(route, (byStatus = new Map<number, number>()))
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1)
      const {headers, method} = request
      if (
        (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) &&
        (method === 'GET' || method === 'HEAD') &&
        status < 400
      ) {
        if (status === 304) revalidated.not_modified += 1
        else revalidated.sent += 1
      }
    },
    recordBuild(outcome) {
      rebuildDuration.observe(
        {kind: outcome.kind, result: outcome.ok ? 'success' : 'failure'},
        outcome.durationMs / 1000,
      )
      if (!outcome.ok) rebuildFailures.inc({kind: outcome.kind})
    },
    async send(_request, response) {
      const body = await registry.metrics()
      response.writeHead(200, {'Content-Type': registry.contentType, 'Cache-Control': 'no-store'})
      response.end(body)
    },
  }
}
