import {backoffDelay} from '../backoff.ts'
import {errorMessage} from '../errors.ts'
import {
  applyReindex,
  indexSteps,
  reindexOf,
  workOf,
  type FollowedState,
  type Indexed,
  type IndexedContent,
  type Reindex,
} from './index-content.ts'

/** What a snapshot offers the search: its content, its version, and what changed since an earlier one. */
export interface Searched extends Indexed {
  readonly searchIndex: SearchIndex
}

/**
 * The most work a search does to build a whole index before answering: about 100 ms, counted in
 * documents, a KiB of transcript counting as one (each takes about 40 µs to index). The sample
 * catalog is a few hundred; one of 100,000 items would hold every other request back for seconds,
 * so its index is built in the background while searches hear that it is being built (a 503 with
 * Retry-After over HTTP). Counted, not timed, so that a busy machine answers as a quiet one does.
 */
const SYNC_INDEX_WORK = 2_500
const MS_PER_WORK = 0.045
/** How long each slice of a background build holds the event loop. */
const SLICE_MS = 20
/**
 * After a background build fails, how long before a search may start the next one, doubling with
 * each failure: a build that fails each time must not keep a core busy, one build after another.
 */
const FAILED_BUILD_RETRY_MS = 10_000
const FAILED_BUILD_RETRY_MAX_MS = 600_000

/** How the background builds went, for /status: failures in a row, and the last one's error. */
export interface SearchIndexHealth {
  building: boolean
  consecutiveFailures: number
  /** The last failure's error, kept after a build succeeds (as Podping's last_error is). */
  lastError: string | null
  /** When a search may start the next build, after a failure (epoch ms); null when it may now. */
  nextBuildAt: number | null
}

/** What a search of a snapshot gets: its index, or word that it is being built. */
export type IndexLookup = {ready: true; content: IndexedContent} | IndexBeingBuilt

/** A search that comes before its index is built: how many seconds to wait before asking again. */
export interface IndexBeingBuilt {
  ready: false
  retryAfterSeconds: number
}

/** What a search of a snapshot needs done first, decided before any of it is done. */
type Plan =
  | {kind: 'ready'; content: IndexedContent}
  | {kind: 'reindex'; followed: FollowedState; reindex: Reindex}
  | {kind: 'build'; work: number; own: boolean}
  | {kind: 'wait'}

/**
 * One index per line of snapshots (a catalog and the snapshots built from it), which follows the
 * newest one searched: each publish re-indexes only the items it changed (its change history says
 * which) when that is at most `syncWork`. A whole index larger than `syncWork` is built in the
 * background, a slice at a time, one build at a time; the index it replaces is let go as it
 * starts, and meanwhile searches are told to retry. A search of a snapshot older than the one
 * followed (a request that began before a publish) gets an index of its own when it is small
 * enough to build at once.
 */
export class SearchIndex {
  #followed: FollowedState | undefined
  #building: {steps: Iterator<void, FollowedState>; readyBy: number} | undefined
  /**
   * The last index built at once for a snapshot older than the one followed, by its version (which
   * names its content): one is enough for the requests that began before a publish, and it is small.
   */
  #older: FollowedState | undefined
  readonly #syncWork: number
  #failures = 0
  #lastError: string | null = null
  /** performance.now() before which no background build starts, after a failed one. */
  #nextBuildAt = 0

  constructor(syncWork = SYNC_INDEX_WORK) {
    this.#syncWork = syncWork
  }

  /** The index answering for exactly `snapshot`'s content, or how long until one may be ready. */
  of(snapshot: Searched): IndexLookup {
    const plan = this.#plan(snapshot)
    switch (plan.kind) {
      case 'ready':
        return {ready: true, content: plan.content}
      case 'reindex':
        applyReindex(plan.followed, snapshot, plan.reindex)
        return {ready: true, content: plan.followed}
      case 'wait':
        return this.#notYet()
      case 'build': {
        if (plan.work > this.#syncWork) {
          if (performance.now() < this.#nextBuildAt) return this.#notYet()
          // The index it replaces goes now, not when the new one is done: it answers only the
          // snapshots before this one, and would double the memory an index takes (about 300 MB
          // at 100k) for the seconds the build runs.
          this.#followed = undefined
          this.#building = {steps: indexSteps(partsOf(snapshot)), readyBy: performance.now() + plan.work * MS_PER_WORK}
          this.#continue()
          return this.#notYet()
        }
        const built = finish(indexSteps(partsOf(snapshot)))
        if (plan.own) this.#older = built
        else this.#followed = built
        return {ready: true, content: built}
      }
    }
  }

  /**
   * Whether a search of `snapshot` would be answered at once, without starting a background build:
   * what a page that shows an example answer asks before it searches.
   */
  answersAtOnce(snapshot: Searched): boolean {
    const plan = this.#plan(snapshot)
    return plan.kind === 'ready' || plan.kind === 'reindex' || (plan.kind === 'build' && plan.work <= this.#syncWork)
  }

  #plan(snapshot: Searched): Plan {
    const followed = this.#followed
    if (followed?.version === snapshot.version) return {kind: 'ready', content: followed}
    const older = this.#older
    if (older?.version === snapshot.version) return {kind: 'ready', content: older}
    // One whole build at a time, and it will replace what is followed: nothing else moves meanwhile.
    if (this.#building) return {kind: 'wait'}
    // Versions name content, so a revert brings an earlier version back: a snapshot is older than
    // the one followed when its history does not reach it, not when the followed one's reaches it.
    const changes = followed && snapshot.history.since(followed.version)
    if (followed && changes) {
      const reindex = reindexOf(followed, snapshot, changes)
      if (reindex.work <= this.#syncWork) return {kind: 'reindex', followed, reindex}
      return {kind: 'build', work: workOf(snapshot), own: false}
    }
    const own = followed?.history.since(snapshot.version) !== undefined
    const work = workOf(snapshot)
    // An older snapshot too large to index at once is not indexed: its searches are retried on the newer one.
    if (own && work > this.#syncWork) return {kind: 'wait'}
    return {kind: 'build', work, own}
  }

  /** Resolves once `snapshot` can be searched (a benchmark or a test waiting out a background build). */
  async ready(snapshot: Searched): Promise<IndexedContent> {
    for (;;) {
      const lookup = this.of(snapshot)
      if (lookup.ready) return lookup.content
      await new Promise((resolve) => setTimeout(resolve, SLICE_MS))
    }
  }

  #continue(): void {
    // Referenced: an unreferenced immediate lets the loop sleep until its next timer or socket, and
    // a quiet server's build then crawled. The process exits at shutdown (main.ts) whatever is pending.
    setImmediate(() => {
      const building = this.#building
      if (!building) return
      try {
        const built = runFor(building.steps, SLICE_MS)
        if (!built) return this.#continue()
        this.#followed = built
        this.#failures = 0
      } catch (error) {
        // A transcript that cannot be read is left out by the steps themselves: this is a defect,
        // or memory run out. A later search starts again, once the backoff has passed.
        this.#failures += 1
        this.#lastError = errorMessage(error)
        this.#nextBuildAt =
          performance.now() + backoffDelay(this.#failures, FAILED_BUILD_RETRY_MS, FAILED_BUILD_RETRY_MAX_MS)
      }
      this.#building = undefined
    })
  }

  health(): SearchIndexHealth {
    const wait = this.#nextBuildAt - performance.now()
    return {
      building: this.#building !== undefined,
      consecutiveFailures: this.#failures,
      lastError: this.#lastError,
      nextBuildAt: wait > 0 ? Date.now() + wait : null,
    }
  }

  #notYet(): IndexLookup {
    const left = (this.#building ? this.#building.readyBy : this.#nextBuildAt) - performance.now()
    return {ready: false, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000))}
  }
}

/** Runs `steps` for up to `ms`: what they built when they finish, undefined when time ran out first. */
function runFor<T>(steps: Iterator<void, T>, ms: number): T | undefined {
  const deadline = performance.now() + ms
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
    if (performance.now() >= deadline) return undefined
  }
}

function finish<T>(steps: Iterator<void, T>): T {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/** What a build reads of a snapshot: not the snapshot itself, whose pages a long build would keep alive. */
const partsOf = ({catalog, version, history}: Searched): Indexed => ({catalog, version, history})
