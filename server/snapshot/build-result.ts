import type {CollectionName} from '../../catalog/v1/links.ts'
import type {Snapshot} from './snapshot.ts'

/** What the next build must cover: everything, or only some documents. */
export type PendingChange = {kind: 'all'} | {kind: 'documents'; documents: ReadonlyMap<string, CollectionName>}

/**
 * What a build produced: its snapshot and what the steps after it need to know of that build, in
 * one value that the guard, the edge and the saver read.
 */
export interface BuildResult<S = Snapshot> {
  readonly snapshot: S
  /**
   * The source's fingerprint taken just before the full read the snapshot was built from: what it
   * may be saved with. (Taken before, so content that changes during the read never matches it
   * later.) Only a full read, with a saved snapshot kept, has one.
   */
  readonly fingerprint?: string
  /**
   * Restored from the saved snapshot and not yet confirmed by a read: the fingerprint it was saved
   * with. A first read whose source still has it serves the restored snapshot on.
   */
  readonly restoredFrom?: {readonly fingerprint: string; readonly savedAt: Date}
  /** How many accepted changes the build covers: those the edge had counted when it started. */
  readonly covers?: number
}

/** Builds the next snapshot from what the current one's build produced (undefined on the first build). */
export type SnapshotBuilder<S = Snapshot> = (
  previous: BuildResult<S> | undefined,
  change: PendingChange,
) => Promise<BuildResult<S>>
