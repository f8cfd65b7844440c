import type {Snapshot} from './snapshot.ts'
import {type SnapshotBuilder} from './store.ts'
import type {Clock} from '../clock.ts'
import {BuildHeld} from '../errors.ts'

export interface MassDeletionGuardOptions {
  clock: Clock
  /** How long after a drastic read a second, agreeing read is believed; 0 turns the guard off. */
  confirmAfterMs: number
}

/** A re-read that would take away more than this share of the served documents is held. */
const DRASTIC_SHARE = 0.5
/** Catalogs smaller than this are not guarded: one deletion would already be "most" of them. */
const GUARDED_FROM_DOCUMENTS = 10

export interface MassDeletionGuard {
  build: SnapshotBuilder
  /** An operator's word: the next build is served whatever it drops. */
  confirm(): void
}

const documentsIn = (snapshot: Snapshot) => snapshot.counts.episodes + snapshot.counts.meetups + snapshot.counts.voices

/**
 * A dataset file emptied or cut short, or a source answering an empty dataset, reads as "everything
 * was deleted". Such a read is not served at once: the build fails (the last good snapshot keeps
 * serving, `/status` says why, the store retries), and the new snapshot is served when a read at
 * least `confirmAfterMs` later gives the same content, or when an operator confirms.
 */
export function guardMassDeletion(build: SnapshotBuilder, options: MassDeletionGuardOptions): MassDeletionGuard {
  let held: {version: string; since: number} | undefined
  let confirmedByOperator = false
  // The documents of a restored snapshot, until a build is served: a first read made without it
  // as `previous` (one saved by other code, or with damaged items) is still guarded against it.
  let restoredDocuments: number | undefined
  // A restored snapshot is `previous` to the first read, so that read is guarded like any other.
  const guarded: SnapshotBuilder = async (previous, change) => {
    const next = await build(previous, change)
    const before = previous ? documentsIn(previous) : (restoredDocuments ?? 0)
    const after = documentsIn(next)
    const drastic =
      options.confirmAfterMs > 0 && before >= GUARDED_FROM_DOCUMENTS && after < before * (1 - DRASTIC_SHARE)
    const now = options.clock().getTime()
    const agreed = held?.version === next.version && now - held.since >= options.confirmAfterMs
    if (!drastic || agreed || confirmedByOperator) {
      held = undefined
      confirmedByOperator = false
      restoredDocuments = undefined
      return next
    }
    if (held?.version !== next.version) held = {version: next.version, since: now}
    const confirmAt = new Date(held.since + options.confirmAfterMs).toISOString()
    throw new BuildHeld(
      `held: the source now has ${after} documents where ${before} are served, which looks like an emptied or truncated dataset. ` +
        `Still serving the ${before}; the new content is served if a read at ${confirmAt} or later agrees, or at once after an operator's SIGHUP.`,
    )
  }
  const restore = build.restore
  if (restore)
    guarded.restore = async () => {
      const restored = await restore()
      restoredDocuments = restored.snapshot && documentsIn(restored.snapshot.value)
      return restored
    }
  return {
    confirm: () => {
      confirmedByOperator = true
    },
    build: guarded,
  }
}
