import type {Clock} from './clock.ts'
import type {Snapshot} from './snapshot/snapshot.ts'

/** setTimeout's longest delay; a longer one fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1

export interface ReleaseTimer {
  /** Waits for this snapshot's next release (none: stops waiting); each served snapshot replaces the last one's wait. */
  arm(snapshot: Pick<Snapshot, 'nextRelease'>): void
  close(): void
}

/**
 * The one timer behind scheduled releases: at the served snapshot's next release time it hands
 * `release` the episodes due, which go through the publish path as a webhook naming them would.
 * A time already past (a restart, a restored snapshot) releases at once. The timer never keeps
 * the process alive, and a wait longer than setTimeout allows is taken in steps.
 */
export function createReleaseTimer(clock: Clock, release: (documentIds: readonly string[]) => void): ReleaseTimer {
  let timer: NodeJS.Timeout | undefined
  const arm = ({nextRelease}: Pick<Snapshot, 'nextRelease'>) => {
    clearTimeout(timer)
    timer = undefined
    if (!nextRelease) return
    const delay = nextRelease.at.getTime() - clock().getTime()
    // The clock is asked again when the timer fires: a step of a long wait, or a timer that ran early, waits on.
    const fire = () =>
      clock().getTime() >= nextRelease.at.getTime() ? release(nextRelease.documentIds) : arm({nextRelease})
    timer = setTimeout(fire, Math.min(Math.max(delay, 0), MAX_DELAY_MS)).unref()
  }
  return {
    arm,
    close() {
      clearTimeout(timer)
      timer = undefined
    },
  }
}
