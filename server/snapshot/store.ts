import {backoffDelay} from '../backoff.ts'
import type {DocumentChange} from '../content/content-change.ts'
import type {Clock} from '../clock.ts'
import {errorMessage} from '../errors.ts'
import type {BuildResult, PendingChange, SnapshotBuilder} from './build-result.ts'
import {startFrom, type Restored, type SavedStart} from './restored-start.ts'
import type {Snapshot} from './snapshot.ts'

export interface BuildOutcome {
  kind: 'full' | 'documents'
  ok: boolean
  startedAt: Date
  durationMs: number
  /** Documents the build covered, for a per-document build. */
  documents?: string[]
  error?: string
}

export interface StoreStatus {
  lastBuild: BuildOutcome | undefined
  lastSuccessAt: Date
  consecutiveFailures: number
  nextRetryAt: Date | undefined
  /** Only when a saved snapshot was looked for. */
  saved?: SavedStart
}

export interface SnapshotStore<S = Snapshot> {
  current(): S
  /** What the current snapshot's build produced with it (its fingerprint, the changes it covers). */
  currentBuild(): BuildResult<S>
  /**
   * Asks for a new snapshot covering these documents, or everything when none are named. Builds
   * never overlap: requests made while one runs are merged into a single follow-up build. A failed
   * build leaves the last good snapshot serving and is retried with backoff; the promise still
   * rejects so a caller can tell.
   */
  refresh(changes?: readonly DocumentChange[]): Promise<S>
  status(): StoreStatus
  /** Resolves once no build runs or follows (at shutdown: the last webhook's build finishes first). */
  settled(): Promise<void>
  /**
   * From now on `listener` hears each build's outcome, with what the build of the snapshot served
   * after it produced (the last good one, after a failure); one listener, the last given. The outcome
   * of the read behind a restored snapshot comes after the caller has the store, so a listener given
   * at once hears it.
   */
  onBuild(listener: (outcome: BuildOutcome, current: BuildResult<S>) => void): void
  /** Cancels a scheduled retry (at shutdown). */
  close(): void
}

export interface StoreOptions<S = Snapshot> {
  clock?: Clock
  /** First retry delay; it doubles up to `maxRetryDelayMs`. */
  retryDelayMs?: number
  maxRetryDelayMs?: number
  /** More changed documents than this in one build are cheaper to rebuild in full. */
  maxDocumentsPerBuild?: number
  /** What was restored of a saved snapshot, when one was looked for: served first (restored-start.ts). */
  restored?: Restored<S>
}

/**
 * One build at a time, over the first snapshot `startFrom` gives (restored-start.ts): changes that
 * arrive while a build runs are merged into one follow-up build, and a failed build keeps the last
 * good snapshot and is retried with backoff.
 */
export async function createSnapshotStore<S = Snapshot>(
  build: SnapshotBuilder<S>,
  options: StoreOptions<S> = {},
): Promise<SnapshotStore<S>> {
  const {clock = () => new Date(), retryDelayMs = 1000, maxRetryDelayMs = 60_000, maxDocumentsPerBuild = 100} = options
  let onBuild: ((outcome: BuildOutcome, current: BuildResult<S>) => void) | undefined
  const first = await startFrom(build, options.restored, clock)
  const {saved} = first
  // A read that failed before a fallback was served is the first failed build: reported and retried like any other.
  const firstFailure: BuildOutcome | undefined = first.failed && {
    kind: 'full',
    ok: false,
    startedAt: first.failed.startedAt,
    durationMs: first.failed.durationMs,
    error: errorMessage(first.failed.error),
  }
  let current = first.built
  let lastSuccessAt = clock()
  let lastBuild: BuildOutcome | undefined = firstFailure
  let consecutiveFailures = firstFailure ? 1 : 0
  let pending: PendingChange | undefined = first.pending
  let running: Promise<S> | undefined
  let followUp: Promise<S> | undefined
  let retryTimer: NodeJS.Timeout | undefined
  let nextRetryAt: Date | undefined
  let closed = false

  const merge = (change: PendingChange) => {
    if (change.kind === 'all' || pending?.kind === 'all') return void (pending = {kind: 'all'})
    const documents = new Map([...(pending?.documents ?? []), ...change.documents])
    pending = documents.size > maxDocumentsPerBuild ? {kind: 'all'} : {kind: 'documents', documents}
  }

  const scheduleRetry = () => {
    if (closed) return
    const delay = backoffDelay(consecutiveFailures, retryDelayMs, maxRetryDelayMs)
    clearTimeout(retryTimer)
    nextRetryAt = new Date(clock().getTime() + delay)
    retryTimer = setTimeout(() => {
      retryTimer = undefined
      nextRetryAt = undefined
      startOrFollow().catch(() => undefined) // the outcome is recorded; the next retry is scheduled
    }, delay)
    retryTimer.unref()
  }

  const start = (): Promise<S> => {
    const change = pending
    // Taken already: by the build running now (a request made between the last build's end and
    // this follow-up took it), whose snapshot is the first with it, or by one that has ended.
    if (!change) return running ?? Promise.resolve(current.snapshot)
    pending = undefined
    const startedAt = clock()
    const documents = change.kind === 'documents' ? [...change.documents.keys()] : undefined
    const record = (ok: boolean, error?: unknown) => {
      lastBuild = {
        kind: change.kind === 'all' ? 'full' : 'documents',
        ok,
        startedAt,
        durationMs: clock().getTime() - startedAt.getTime(),
        ...(documents ? {documents} : {}),
        ...(error === undefined ? {} : {error: errorMessage(error)}),
      }
      onBuild?.(lastBuild, current)
    }
    running = build(current, change).then(
      (next) => {
        current = next
        lastSuccessAt = clock()
        consecutiveFailures = 0
        saved?.buildEnded(true)
        record(true)
        return next.snapshot
      },
      (error: unknown) => {
        consecutiveFailures += 1
        saved?.buildEnded(false, error)
        merge(change) // nothing is lost: the failed change is tried again
        record(false, error)
        scheduleRetry()
        throw error
      },
    )
    running.finally(() => (running = undefined)).catch(() => undefined)
    return running
  }

  const startOrFollow = (): Promise<S> => {
    if (!running) return start()
    followUp ??= running
      .catch(() => undefined)
      .then(() => {
        followUp = undefined
        return start()
      })
    return followUp
  }

  // After the caller has the store: the read's outcome reaches `onBuild`, given meanwhile.
  // A first read that already failed is reported now and retried after the first delay.
  const firstRead: NodeJS.Immediate | undefined =
    pending &&
    setImmediate(() => {
      if (!firstFailure) return void startOrFollow().catch(() => undefined)
      onBuild?.(firstFailure, current)
      scheduleRetry()
    })

  return {
    current: () => current.snapshot,
    currentBuild: () => current,
    refresh(changes) {
      merge(
        changes && changes.length > 0
          ? {kind: 'documents', documents: new Map(changes.map((change) => [change.documentId, change.collection]))}
          : {kind: 'all'},
      )
      clearTimeout(retryTimer) // a fresh request runs now rather than at the next retry
      nextRetryAt = undefined
      return startOrFollow()
    },
    status: () => ({
      lastBuild,
      lastSuccessAt,
      consecutiveFailures,
      nextRetryAt,
      ...(saved ? {saved: saved.status()} : {}),
    }),
    onBuild(listener) {
      onBuild = listener
    },
    async settled() {
      while (running || followUp) await (followUp ?? running)?.catch(() => undefined)
    },
    close: () => {
      closed = true
      clearImmediate(firstRead)
      clearTimeout(retryTimer)
    },
  }
}
