import {backoffDelay} from '../backoff.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import type {DocumentChange} from '../content/content-change.ts'
import type {Snapshot} from './snapshot.ts'
import type {Clock} from '../clock.ts'
import {BuildHeld, errorMessage} from '../errors.ts'

/** What the next build must cover: everything, or only some documents. */
export type PendingChange = {kind: 'all'} | {kind: 'documents'; documents: ReadonlyMap<string, CollectionName>}

/** What a builder can serve before its first read: a snapshot saved by an earlier run, or why (part of) the saved one was refused. */
export interface Restored<S> {
  /**
   * `otherCode`: saved by other code; `partial`: damaged items were left out of it; `behindEdge`:
   * older than what the CDN was last told (a crash before the newest snapshot was saved). Each is
   * served only when the source cannot be read at start, and only until it answers.
   */
  snapshot?: {value: S; savedAt: Date; otherCode?: boolean; partial?: boolean; behindEdge?: boolean}
  refused?: string
}

/** Builds the next snapshot from the current one (undefined on the first build). */
export interface SnapshotBuilder<S = Snapshot> {
  (previous: S | undefined, change: PendingChange): Promise<S>
  /**
   * A snapshot to serve before the first build: the store serves it at once and runs the first
   * build in the background with it as `previous`, retried on failure like any other build.
   */
  restore?: () => Promise<Restored<S>>
}

export interface BuildOutcome {
  kind: 'full' | 'documents'
  ok: boolean
  startedAt: Date
  durationMs: number
  /** Documents the build covered, for a per-document build. */
  documents?: string[]
  error?: string
}

/** How the store started from a saved snapshot; only when its builder looks for one. */
interface SavedStart {
  /** When the snapshot served since start was saved; undefined when none was served. */
  savedAt: Date | undefined
  /** Why a saved snapshot, or some of its items, was not served (damaged), if so. */
  refused: string | undefined
  /** The snapshot served since start was saved by other code: a fallback until the first read is done. */
  otherCode: boolean
  /** The saved snapshot is older than what the CDN holds: served only as a fallback until the first read is done. */
  behindEdge: boolean
  /** The first read of the source after the saved snapshot was served. */
  firstRead: 'reading' | 'done' | 'failed' | 'held' | undefined
}

export interface StoreStatus {
  lastBuild: BuildOutcome | undefined
  lastSuccessAt: Date
  consecutiveFailures: number
  nextRetryAt: Date | undefined
  /** Only when the builder looks for a saved snapshot. */
  saved?: SavedStart
}

export interface SnapshotStore<S = Snapshot> {
  current(): S
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
   * From now on `listener` hears each build's outcome, with the snapshot served after it (the last
   * good one, after a failure); one listener, the last given. The outcome of the read behind a
   * restored snapshot comes after the caller has the store, so a listener given at once hears it.
   */
  onBuild(listener: (outcome: BuildOutcome, current: S) => void): void
  /** Cancels a scheduled retry (at shutdown). */
  close(): void
}

export interface StoreOptions {
  clock?: Clock
  /** First retry delay; it doubles up to `maxRetryDelayMs`. */
  retryDelayMs?: number
  maxRetryDelayMs?: number
  /** More changed documents than this in one build are cheaper to rebuild in full. */
  maxDocumentsPerBuild?: number
}

/**
 * Serves the builder's restored snapshot, if any, and reads the source behind it; otherwise builds
 * the first snapshot (rejects if that fails: there is nothing to serve yet). A snapshot restored
 * from other code is the fallback of a first build that failed.
 */
export async function createSnapshotStore<S = Snapshot>(
  build: SnapshotBuilder<S>,
  options: StoreOptions = {},
): Promise<SnapshotStore<S>> {
  const {clock = () => new Date(), retryDelayMs = 1000, maxRetryDelayMs = 60_000, maxDocumentsPerBuild = 100} = options
  let onBuild: ((outcome: BuildOutcome, current: S) => void) | undefined
  const restored = await build.restore?.()
  // A snapshot saved by other code, or with damaged items left out, is served only when the source
  // cannot be read now: rather than exiting, the server then serves it and retries, as after any failed build.
  // Such a read that fails is the first failed build: reported and retried like any other.
  let firstFailure: {outcome: BuildOutcome; held: boolean} | undefined
  const firstStartedAt = clock()
  const builtFirst =
    restored?.snapshot?.otherCode || restored?.snapshot?.partial || restored?.snapshot?.behindEdge
      ? await build(undefined, {kind: 'all'}).then(
          (value) => ({value}),
          (error: unknown) => {
            const durationMs = clock().getTime() - firstStartedAt.getTime()
            const outcome = {
              kind: 'full' as const,
              ok: false,
              startedAt: firstStartedAt,
              durationMs,
              error: errorMessage(error),
            }
            firstFailure = {outcome, held: error instanceof BuildHeld}
            return undefined
          },
        )
      : undefined
  const startsFrom = builtFirst ? undefined : restored?.snapshot
  const saved: SavedStart | undefined = restored && {
    savedAt: startsFrom?.savedAt,
    refused: restored.refused,
    otherCode: startsFrom?.otherCode === true,
    behindEdge: restored.snapshot?.behindEdge === true,
    firstRead: startsFrom && (firstFailure ? (firstFailure.held ? 'held' : 'failed') : 'reading'),
  }
  let current: S = builtFirst?.value ?? startsFrom?.value ?? (await build(undefined, {kind: 'all'}))
  let lastSuccessAt = clock()
  let lastBuild: BuildOutcome | undefined = firstFailure?.outcome
  let consecutiveFailures = firstFailure ? 1 : 0
  // A restored snapshot is followed by a full read, as if a change to everything had come in.
  let pending: PendingChange | undefined = startsFrom && {kind: 'all'}
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
    if (!change) return Promise.resolve(current) // an earlier build already covered it
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
      (next: S) => {
        current = next
        lastSuccessAt = clock()
        consecutiveFailures = 0
        if (saved?.firstRead) saved.firstRead = 'done'
        record(true)
        return next
      },
      (error: unknown) => {
        consecutiveFailures += 1
        if (saved?.firstRead && saved.firstRead !== 'done')
          saved.firstRead = error instanceof BuildHeld ? 'held' : 'failed'
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
      onBuild?.(firstFailure.outcome, current)
      scheduleRetry()
    })

  return {
    current: () => current,
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
    status: () => ({lastBuild, lastSuccessAt, consecutiveFailures, nextRetryAt, ...(saved ? {saved: {...saved}} : {})}),
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
