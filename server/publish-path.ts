// A publish, top-down: a change is accepted (a verified webhook, an edit of the dataset file, a
// release time reached), the store builds what it names, and a build that succeeds is served:
// recorded, reported, saved, told to the replicas, purged, pinged, announced. Each step after a
// build is contained: one that throws is logged, and the next still runs.

import type {Logger} from 'pino'
import type {Clock} from './clock.ts'
import {documentChangeOf, type ContentChange} from './content/content-change.ts'
import type {EdgePurging} from './edge/edge-purging.ts'
import type {FeedPinger} from './feed/websub.ts'
import type {LeftOutItems} from './left-out-items.ts'
import {FEED_PATH} from './feed/rss-feed.ts'
import type {EventStreams} from './http/event-streams.ts'
import type {ListenStreams} from './mcp/listen-streams.ts'
import type {CatalogMetrics} from './observability/metrics.ts'
import {createReleaseTimer} from './release-timer.ts'
import type {ChangeFanOut} from './scaling/change-fan-out.ts'
import type {HistoryFanOut} from './scaling/history-fan-out.ts'
import type {ServedVersions} from './scaling/served-versions.ts'
import type {SnapshotSaver} from './snapshot-saver.ts'
import type {BuildResult} from './snapshot/build-result.ts'
import type {BuildOutcome, SnapshotStore} from './snapshot/store.ts'

export interface PublishPathParts {
  store: Pick<SnapshotStore, 'refresh'>
  /** When a scheduled episode is released. */
  clock: Clock
  /** How often everything is read again, whatever webhooks said (a delivery may be lost); 0: never. */
  reconcileEveryMs?: number
  logger: Logger
  metrics: Pick<CatalogMetrics, 'recordBuild'>
  /** The one report of what the catalog and its outputs left out: this path logs each build's document problems there. */
  leftOut: Pick<LeftOutItems, 'reportProblems'>
  /** SNAPSHOT_DIR's saved snapshot, when one is kept. */
  saver?: Pick<SnapshotSaver, 'served'> | undefined
  /** Replicas sharing Redis: what each serves, and the changes and versions they tell each other. */
  replicas?: {servedVersions: Pick<ServedVersions, 'serving'>; fanOut: ChangeFanOut; history: HistoryFanOut} | undefined
  edge?: Pick<EdgePurging, 'changeAccepted' | 'snapshotServed'> | undefined
  feedPinger?: FeedPinger | undefined
  /** Podping (feed/podping.ts): told of the same changes, a step of its own. */
  podping?: FeedPinger | undefined
  /** MCP clients holding a `subscriptions/listen` stream. */
  agents?: Pick<ListenStreams, 'served'> | undefined
  /** `GET /api/v1/events` streams: one event per served version. */
  events?: Pick<EventStreams, 'served'> | undefined
}

export interface PublishPath {
  /**
   * A change was accepted (a verified webhook, an edit of the dataset file): the purge queue
   * notes on disk that the edge is about to be stale, the store rebuilds, and the other replicas
   * hear of it. Every step runs; false when the queue could not be written (a webhook then gets
   * a 503, so Sanity delivers the change again).
   */
  accepted(changes: readonly ContentChange[]): boolean
  /** A change another replica accepted: rebuilt here too, not announced again. */
  heardFromReplica(change: ContentChange): void
  /** Everything is read again, for `reason` (the reconcile timer, a dataset file that could not be read). */
  reread(reason: string): void
  /**
   * A build ended; when it succeeded, `result` is what the build of the snapshot the store now
   * serves produced. In order: record, then the steps of `served`. A step that throws is logged
   * and the next still runs: one failing output never holds back the others.
   */
  built(outcome: BuildOutcome, result: BuildResult): void
  /**
   * The steps after `record` for a build whose snapshot is now served (the first one, at start):
   * report, save, replicas, purge, ping, podping, agents, events, releases.
   */
  served(result: BuildResult, buildStartedAt: Date): void
  /** Stops the reconcile timer and the wait for the next scheduled release (at shutdown). */
  close(): void
}

/** What happens after each accepted change and each build, in the order a reader follows it. */
export function createPublishPath(parts: PublishPathParts): PublishPath {
  const {store, logger, metrics, leftOut, saver, replicas, edge, feedPinger, podping, agents, events} = parts
  const contained = (step: string, run: () => void) => {
    try {
      run()
    } catch (error) {
      logger.error({err: error, step}, `${step} failed after a build; the other steps ran`)
    }
  }
  // A release is published as a webhook naming the episodes would be: rebuilt, purged exactly, pinged.
  const releases = createReleaseTimer(parts.clock, (documentIds) =>
    accepted(documentIds.flatMap((id) => documentChangeOf(id, 'episode') ?? [])),
  )
  const {reconcileEveryMs = 0} = parts
  const reconcile = reconcileEveryMs > 0 ? setInterval(() => reread('reconcile timer'), reconcileEveryMs) : undefined
  reconcile?.unref()

  function accepted(changes: readonly ContentChange[]): boolean {
    const recorded = edge?.changeAccepted() ?? true
    refresh(store, changes)
    contained('fan-out', () => changes.forEach((change) => replicas?.fanOut.announce(change)))
    return recorded
  }

  function heardFromReplica(change: ContentChange): void {
    logger.info({change}, 'another replica received a webhook; rebuilding')
    refresh(store, [change])
  }

  function reread(reason: string): void {
    logger.info(`re-reading the catalog: ${reason}`)
    refresh(store, ['all'])
  }

  function built(outcome: BuildOutcome, result: BuildResult): void {
    contained('record', () => {
      logBuild(logger, outcome)
      metrics.recordBuild(outcome)
    })
    if (outcome.ok) served(result, outcome.startedAt)
  }

  function served(result: BuildResult, buildStartedAt: Date): void {
    const {snapshot} = result
    contained('report', () => leftOut.reportProblems(snapshot))
    contained('save', () => saver?.served(result))
    contained('replicas', () => {
      replicas?.servedVersions.serving(snapshot.version)
      const step = snapshot.history.lastStep()
      if (step?.to === snapshot.version) replicas?.history.announce(step)
    })
    contained('purge', () => edge?.snapshotServed(result, buildStartedAt))
    contained('ping', () => feedPinger?.observe(snapshot.site(FEED_PATH)?.etag))
    contained('podping', () => podping?.observe(snapshot.site(FEED_PATH)?.etag))
    contained('agents', () => agents?.served(snapshot))
    contained('events', () => events?.served(snapshot))
    contained('releases', () => releases.arm(snapshot))
  }

  function close(): void {
    clearInterval(reconcile)
    releases.close()
  }

  return {accepted, heardFromReplica, reread, built, served, close}
}

/** Rebuilds what the changes name, in one build; the store records, logs and retries a failure. */
function refresh(store: Pick<SnapshotStore, 'refresh'>, changes: readonly ContentChange[]): void {
  const documents = changes.flatMap((change) => (change === 'all' ? [] : [change]))
  store.refresh(documents.length < changes.length ? undefined : documents).catch(() => undefined)
}

function logBuild(logger: Logger, outcome: BuildOutcome): void {
  const scope = outcome.kind === 'full' ? 'full rebuild' : `rebuild of ${outcome.documents?.join(', ')}`
  const fields = {build: outcome.kind, durationMs: outcome.durationMs, documents: outcome.documents}
  if (outcome.ok) logger.info(fields, `${scope} done in ${outcome.durationMs} ms`)
  else
    logger.error(
      fields,
      `${scope} failed after ${outcome.durationMs} ms (${outcome.error}); still serving the last good snapshot, retrying`,
    )
}
