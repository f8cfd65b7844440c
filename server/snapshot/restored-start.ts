import type {Clock} from '../clock.ts'
import {BuildHeld} from '../errors.ts'
import type {BuildResult, PendingChange, SnapshotBuilder} from './build-result.ts'
import type {Snapshot} from './snapshot.ts'

/** What can be served before the first read: a snapshot saved by an earlier run, or why (part of) the saved one was refused. */
export interface Restored<S = Snapshot> {
  /**
   * `otherCode`: saved by other code; `partial`: damaged items were left out of it; `behindEdge`:
   * older than what the CDN was last told (a crash before the newest snapshot was saved). Each is
   * served only when the source cannot be read at start, and only until it answers.
   */
  snapshot?: {built: BuildResult<S>; savedAt: Date; otherCode?: boolean; partial?: boolean; behindEdge?: boolean}
  refused?: string
}

/** How the store started from a saved snapshot; only when one was looked for. */
export interface SavedStart {
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

/** What a store serves first, and what it does next. */
export interface FirstBuild<S> {
  /** Served from the start: the restored snapshot, or the first read of the source. */
  built: BuildResult<S>
  /** What to build once the caller has the store: a full read behind a restored snapshot. */
  pending: PendingChange | undefined
  /** The read made before serving a fallback, which failed: the store's first failed build. */
  failed?: {startedAt: Date; durationMs: number; error: unknown}
  /** With a saved snapshot looked for: how the start went, told of each build's end after it. */
  saved?: {status(): SavedStart; buildEnded(ok: boolean, error?: unknown): void}
}

const ALL: PendingChange = {kind: 'all'}

/**
 * Serves the restored snapshot, if any, with a full read to follow it; otherwise builds the first
 * snapshot (rejects if that fails: there is nothing to serve yet). A snapshot saved by other code,
 * with damaged items left out or older than the edge is served only when the source cannot be read
 * now: rather than exiting, the server then serves it and retries, as after any failed build.
 */
export async function startFrom<S>(
  build: SnapshotBuilder<S>,
  restored: Restored<S> | undefined,
  clock: Clock,
): Promise<FirstBuild<S>> {
  const fallback = restored?.snapshot?.otherCode || restored?.snapshot?.partial || restored?.snapshot?.behindEdge
  let failed: FirstBuild<S>['failed']
  const startedAt = clock()
  const readFirst = fallback
    ? await build(undefined, ALL).catch((error: unknown) => {
        failed = {startedAt, durationMs: clock().getTime() - startedAt.getTime(), error}
        return undefined
      })
    : undefined
  const startsFrom = readFirst ? undefined : restored?.snapshot
  const saved = restored && savedStart(restored, startsFrom, failed)
  return {
    built: readFirst ?? startsFrom?.built ?? (await build(undefined, ALL)),
    pending: startsFrom && ALL,
    ...(failed ? {failed} : {}),
    ...(saved ? {saved} : {}),
  }
}

function savedStart<S>(
  restored: Restored<S>,
  startsFrom: Restored<S>['snapshot'],
  failed: {error: unknown} | undefined,
): NonNullable<FirstBuild<S>['saved']> {
  const readFailed = (error: unknown) => (error instanceof BuildHeld ? 'held' : 'failed')
  const status: SavedStart = {
    savedAt: startsFrom?.savedAt,
    refused: restored.refused,
    otherCode: startsFrom?.otherCode === true,
    behindEdge: restored.snapshot?.behindEdge === true,
    firstRead: startsFrom && (failed ? readFailed(failed.error) : 'reading'),
  }
  return {
    status: () => ({...status}),
    buildEnded(ok, error) {
      if (!status.firstRead) return
      if (ok) status.firstRead = 'done'
      else if (status.firstRead !== 'done') status.firstRead = readFailed(error)
    },
  }
}
