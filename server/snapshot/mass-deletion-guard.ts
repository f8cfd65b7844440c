import type {SnapshotBuilder} from './build-result.ts'
import type {Snapshot} from './snapshot.ts'
import type {Clock} from '../clock.ts'
import {BuildHeld} from '../errors.ts'

export interface MassDeletionGuardOptions {
  clock: Clock
  /** How long after a drastic read a second, agreeing read is believed; 0 turns the guard off. */
  confirmAfterMs: number
  /**
   * The snapshot restored at start, if any: a first read made without it as `previous` (one saved
   * by other code, with damaged items or behind the edge) is still guarded against it.
   */
  restored?: Snapshot | undefined
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
  // The restored snapshot's documents, until a build is served.
  let restoredDocuments = options.restored && documentsIn(options.restored)
  // A restored snapshot is `previous` to the first read, so that read is guarded like any other.
  const guarded: SnapshotBuilder = async (previous, change) => {
    const next = await build(previous, change)
    const before = previous ? documentsIn(previous.snapshot) : (restoredDocuments ?? 0)
    const after = documentsIn(next.snapshot)
    const version = next.snapshot.version
    const drastic =
      options.confirmAfterMs > 0 && before >= GUARDED_FROM_DOCUMENTS && after < before * (1 - DRASTIC_SHARE)
    const now = options.clock().getTime()
    const agreed = held?.version === version && now - held.since >= options.confirmAfterMs
    if (!drastic || agreed || confirmedByOperator) {
      held = undefined
      confirmedByOperator = false
      restoredDocuments = undefined
      return next
    }
    if (held?.version !== version) held = {version, since: now}
    const confirmAt = new Date(held.since + options.confirmAfterMs).toISOString()
    throw new BuildHeld(
      `held: the source now has ${after} documents where ${before} are served, which looks like an emptied or truncated dataset. ` +
        `Still serving the ${before}; the new content is served if a read at ${confirmAt} or later agrees, or at once after an operator's SIGHUP.`,
    )
  }
  return {
    confirm: () => {
      confirmedByOperator = true
    },
    build: guarded,
  }
}
