import type {Snapshot} from './snapshot.ts'

/** Builds the next snapshot from the current one (undefined on the first build). */
export type SnapshotBuilder = (previous: Snapshot | undefined) => Promise<Snapshot>

export interface SnapshotStore {
  current(): Snapshot
  /**
   * Builds a new snapshot and swaps it in. Single-flight: while a build runs, callers share one
   * follow-up build, so a burst of requests costs at most two. A failed build rejects and leaves
   * the last good snapshot serving.
   */
  rebuild(): Promise<Snapshot>
}

/** Builds the first snapshot (rejects if that fails: there is nothing to serve yet). */
export async function createSnapshotStore(build: SnapshotBuilder): Promise<SnapshotStore> {
  let current = await build(undefined)
  let running: Promise<Snapshot> | undefined
  let queued: Promise<Snapshot> | undefined

  const start = (): Promise<Snapshot> => {
    running = build(current)
      .then((next) => (current = next))
      .finally(() => (running = undefined))
    return running
  }

  return {
    current: () => current,
    rebuild() {
      if (!running) return start()
      // The running build may have read content from before this call: one more follows it.
      queued ??= running
        .catch(() => undefined)
        .then(() => {
          queued = undefined
          return start()
        })
      return queued
    },
  }
}
