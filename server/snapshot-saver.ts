import type {Logger} from 'pino'
import {whileBuilding} from './snapshot/heap-growth.ts'
import {UNCONFIRMED_FINGERPRINT, type SnapshotFile} from './snapshot/saved-snapshot.ts'
import type {BuildResult} from './snapshot/build-result.ts'
import {probeDirectory} from './start-failure.ts'
import {errorMessage} from './errors.ts'

/** How long a served snapshot waits before it is saved: a burst of edits is one write. */
const SAVE_AFTER_MS = 1000
/** How soon a directory that refused a write is tried again. */
const WRITE_RETRY_MS = 5000

/** What the saver reads of a build: its snapshot, and the source's fingerprint it may be saved with. */
type Saved = Pick<BuildResult, 'snapshot' | 'fingerprint'>

export interface SnapshotSaverOptions {
  file: SnapshotFile
  directory: string
  logger: Logger
  /** Writes and removes a file in the directory: how a refused directory is tried again with nothing to save. */
  probe?: () => Promise<void>
  /** Why the directory could not be written at start, if it could not: the saver starts refused. */
  refusedAtStart?: string | undefined
  saveAfterMs?: number
  retryMs?: number
}

export interface SnapshotSaver {
  /** The build's snapshot is served now: it is saved within `saveAfterMs`, unless a newer one replaces it first. */
  served(built: Saved): void
  /** The build's snapshot is the saved file (restored from it at start): nothing to write. */
  alreadySaved(built: Saved): void
  /** Writes what is waiting now; resolves once it is written or refused (at shutdown, before exit). */
  flush(): Promise<void>
  /** Null while saves succeed; otherwise why the directory refused the last one. */
  writeError(): string | null
  /** Stops retrying and saving; resolves once a write under way has settled (its file closed). */
  close(): Promise<void>
}

/**
 * The saved snapshot follows the served one: every snapshot served (a full read or a per-document
 * build) is saved, the newest only, one write at a time. A per-document build is saved without a
 * fingerprint, so the start after it serves it and still reads the source in full behind it. A
 * directory that refuses the write (read-only, full) is reported once and tried again every
 * `retryMs` until it takes the newest snapshot; serving never waits for it.
 */
export function createSnapshotSaver(options: SnapshotSaverOptions): SnapshotSaver {
  const {file, directory, logger, probe = () => probeDirectory(directory)} = options
  const saveAfterMs = options.saveAfterMs ?? SAVE_AFTER_MS
  const retryMs = options.retryMs ?? WRITE_RETRY_MS
  let waiting: Saved | undefined
  // The last snapshot written, held weakly: a retired snapshot (its feed alone is 100 MB at 100k
  // documents) must not outlive its successor for the saver's sake.
  let saved: {snapshot: WeakRef<Saved['snapshot']>; key: string} | undefined
  let writing: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let refused: string | undefined = options.refusedAtStart
  let closed = false

  const keyOf = (built: Saved) => `${built.fingerprint ?? UNCONFIRMED_FINGERPRINT} ${built.snapshot.version}`
  const schedule = (delayMs: number) => {
    if (closed || timer !== undefined) return
    timer = setTimeout(() => {
      timer = undefined
      void write()
    }, delayMs).unref()
  }
  const failed = (error: unknown) => {
    const reason = errorMessage(error)
    if (refused === undefined)
      logger.warn(
        {err: error},
        `could not save the snapshot to ${directory}; serving on, retrying every ${retryMs / 1000} s (a restart meanwhile reads the source in full)`,
      )
    refused = reason
    schedule(retryMs)
  }
  const succeeded = () => {
    if (refused !== undefined) logger.info(`${directory} is written again`)
    refused = undefined
  }
  const write = async (): Promise<void> => {
    if (writing) return writing.then(write)
    const built = waiting
    waiting = undefined
    const started = performance.now()
    writing = (
      built === undefined
        ? probe().then(succeeded)
        : whileBuilding(() => file.save(built.snapshot, built.fingerprint ?? UNCONFIRMED_FINGERPRINT)).then(() => {
            saved = {snapshot: new WeakRef(built.snapshot), key: keyOf(built)}
            succeeded()
            logger.info(`saved the snapshot to ${directory} in ${Math.round(performance.now() - started)} ms`)
          })
    )
      .catch((error: unknown) => {
        waiting ??= built // the newest snapshot not yet written waits for the retry
        failed(error)
      })
      .finally(() => (writing = undefined))
    return writing
  }
  if (refused !== undefined) schedule(retryMs)

  return {
    served(built) {
      // A reconcile that read the same content under the same fingerprint has nothing new to save.
      if (saved && (saved.snapshot.deref() === built.snapshot || (built.fingerprint && saved.key === keyOf(built)))) {
        waiting = undefined // what waited is older than what is served, which the file already holds
        return
      }
      waiting = built
      schedule(refused === undefined ? saveAfterMs : retryMs)
    },
    alreadySaved(built) {
      saved = {snapshot: new WeakRef(built.snapshot), key: keyOf(built)}
    },
    async flush() {
      clearTimeout(timer)
      timer = undefined
      if (waiting) await write()
      else await writing
    },
    writeError: () => refused ?? null,
    async close() {
      closed = true
      clearTimeout(timer)
      await writing
    },
  }
}
