import type {RequestHandler} from 'express'
import type {EdgeStatus} from '../edge/edge-purging.ts'
import type {PodpingStatus} from '../feed/podping.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import type {StoreStatus} from '../snapshot/store.ts'
import type {SearchIndexHealth} from '../snapshot/search-index.ts'
import type {Clock} from '../clock.ts'

// A refused document (`rejected`) or one served at its last valid version (`kept`, the feed's
// channel among them) means the source's content is not what is served.
const holdsBack = (problem: {severity: string}) => problem.severity !== 'warning'

/**
 * `GET /status`: what an operator needs to know about the content, built per request from the
 * current snapshot and the store: its age and counts, the last build, and every document that is
 * not served as it is in the source. `ok` only while builds succeed and nothing is held back.
 */
export interface StatusParts {
  /** What the status reads of the store: the snapshot served and how its builds went. */
  store: {
    current(): Pick<Snapshot, 'version' | 'builtAt' | 'counts'> & {catalog: Pick<Snapshot['catalog'], 'problems'>}
    status(): StoreStatus
  }
  sourceDescription: string
  clock: Clock
  edge?: (() => EdgeStatus) | undefined
  requestBodiesInFlight?: (() => number) | undefined
  /** Items the feed or a sitemap of the current snapshot left out because they could not be written. */
  leftOut?: (() => readonly {output: string; documentId: string; reason: string}[]) | undefined
  /** With a shared rate-limit store: since when requests are counted in this process instead (undefined: shared). */
  rateLimitLocalSince?: (() => Date | undefined) | undefined
  /** With SNAPSHOT_DIR: why the last save was refused (a read-only or full disk), or null. */
  snapshotWriteError?: (() => string | null) | undefined
  /** With PODPING_URL: the announcements to Podping (a failing one holds nothing back: apps still poll the feed). */
  podping?: (() => PodpingStatus) | undefined
  /** How the search index's background builds go (a large catalog's index is built in the background). */
  searchIndex?: (() => SearchIndexHealth) | undefined
}

export function statusHandler(parts: StatusParts): RequestHandler {
  return (_request, response) => {
    response.set('Cache-Control', 'no-store').json(statusDocument(parts))
  }
}

/** The status document as of now. */
export function statusDocument(parts: StatusParts) {
  const {store, sourceDescription, clock, edge, requestBodiesInFlight, rateLimitLocalSince, leftOut = () => []} = parts
  const snapshotWriteError = parts.snapshotWriteError ?? (() => null)
  const snapshot = store.current()
  const status = store.status()
  const iso = (date: Date | undefined) => date?.toISOString() ?? null
  const {problems} = snapshot.catalog
  const edgeNow = edge?.()
  const left = leftOut()
  const localSince = rateLimitLocalSince?.()
  const writeError = snapshotWriteError()
  const podpingNow = parts.podping?.()
  const searchNow = parts.searchIndex?.()
  // Anything held back: a failing or held build, a document not served as it is, an output item
  // left out, a snapshot or a purge queue that cannot be written, a purge older than the edge TTL,
  // or a search index whose build failed (search answers 503 meanwhile).
  const heldBack =
    status.consecutiveFailures > 0 ||
    (searchNow !== undefined && searchNow.consecutiveFailures > 0) ||
    writeError !== null ||
    problems.some(holdsBack) ||
    left.length > 0 ||
    (edgeNow !== undefined && (!edgeNow.writable || edgeNow.purgeOverdue))
  return {
    status: heldBack ? 'degraded' : 'ok',
    source: sourceDescription,
    snapshot: {
      version: snapshot.version,
      built_at: iso(snapshot.builtAt),
      age_seconds: Math.max(0, Math.round((clock().getTime() - snapshot.builtAt.getTime()) / 1000)),
      counts: snapshot.counts,
    },
    last_build: status.lastBuild
      ? {
          kind: status.lastBuild.kind,
          ok: status.lastBuild.ok,
          started_at: iso(status.lastBuild.startedAt),
          duration_ms: status.lastBuild.durationMs,
          documents: status.lastBuild.documents ?? null,
          error: status.lastBuild.error ?? null,
        }
      : null,
    last_success_at: iso(status.lastSuccessAt),
    consecutive_failures: status.consecutiveFailures,
    next_retry_at: iso(status.nextRetryAt),
    // With SNAPSHOT_DIR: the saved snapshot served at start (or why it was refused), and the first read behind it.
    ...(status.saved && {
      saved_snapshot: {
        saved_at: iso(status.saved.savedAt),
        refused: status.saved.refused ?? null,
        written_by_other_code: status.saved.otherCode,
        behind_edge: status.saved.behindEdge,
        write_error: writeError,
        first_read: status.saved.firstRead ?? null,
      },
    }),
    edge: edgeNow ? edgeStatusBody(edgeNow) : null,
    // The quota holds per replica while the shared store (Redis) is bypassed.
    rate_limit: rateLimitLocalSince ? {counted: localSince ? 'local' : 'shared', local_since: iso(localSince)} : null,
    // Each holds a socket and a buffer; one that never leaves the count would shut POST out at the bound.
    request_bodies_in_flight: requestBodiesInFlight?.() ?? null,
    problems: problems.map((problem) => ({
      document_id: problem.documentId,
      collection: problem.collection,
      severity: problem.severity,
      messages: problem.messages,
    })),
    left_out: left.map((item) => ({output: item.output, document_id: item.documentId, reason: item.reason})),
    search_index: searchNow
      ? {
          building: searchNow.building,
          consecutive_failures: searchNow.consecutiveFailures,
          last_error: searchNow.lastError,
          next_build_at: searchNow.nextBuildAt === null ? null : new Date(searchNow.nextBuildAt).toISOString(),
        }
      : null,
    // With PODPING_URL only, as saved_snapshot is with SNAPSHOT_DIR.
    ...(podpingNow && {
      podping: {
        last_announced_at: iso(podpingNow.lastAnnouncedAt),
        consecutive_failures: podpingNow.consecutiveFailures,
        last_error: podpingNow.lastError ?? null,
        last_error_at: iso(podpingNow.lastErrorAt),
      },
    }),
  }
}

/** The CDN purge queue, as an operator reads it: how much is waiting, since when, and what was given up. */
function edgeStatusBody(edge: EdgeStatus) {
  return {
    provider: edge.provider,
    queue_depth: edge.depth,
    oldest_unpurged_age_seconds: edge.oldestUnpurgedAgeSeconds,
    last_purged_version: edge.lastPurgedVersion,
    purges_sent: edge.purgesSent,
    purges_failed: edge.purgesFailed,
    keys_purged: edge.keysPurged,
    key_fallbacks: edge.keyFallbacks,
    last_webhook_to_purge_ms: edge.lastWebhookToPurgeMs,
    purge_overdue: edge.purgeOverdue,
    queue_writable: edge.writable,
    queue_write_error: edge.writeError,
    dead_letters: edge.deadLetters.map((letter) => ({
      at: new Date(letter.at).toISOString(),
      error: letter.error,
      key_count: letter.keyCount,
      keys: letter.keys,
    })),
  }
}
