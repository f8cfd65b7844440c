import {afterEach, describe, expect, it, vi} from 'vitest'
import {createReleaseTimer} from '../server/release-timer.ts'
import {eventually} from '../support/eventually.ts'

// The one release timer, with an injected clock that follows real time from a fixed start.

const START = Date.parse('2027-06-01T05:00:00Z')
const clockFrom = (startedAt = performance.now()) => {
  let reads = 0
  return {
    clock: () => {
      reads++
      return new Date(START + (performance.now() - startedAt))
    },
    reads: () => reads,
  }
}
const release = (at: number, documentIds = ['future']) => ({nextRelease: {at: new Date(at), documentIds}})
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

afterEach(() => vi.useRealTimers())

describe('the release timer', () => {
  it('releases at once when the time is already past (a restart, a restored snapshot)', async () => {
    const {clock} = clockFrom()
    const released: (readonly string[])[] = []
    const timer = createReleaseTimer(clock, (ids) => released.push(ids))
    timer.arm(release(START - 60_000))
    await eventually(async () => expect(released).toEqual([['future']]))
    timer.close()
  })

  it('releases at the time, not before, and only the last armed release', async () => {
    const {clock} = clockFrom()
    const released: (readonly string[])[] = []
    const timer = createReleaseTimer(clock, (ids) => released.push(ids))
    timer.arm(release(START + 150, ['replaced']))
    timer.arm(release(START + 300))
    await pause(100)
    expect(released).toEqual([])
    await eventually(async () => expect(released).toEqual([['future']]), 5000)
    expect(clock().getTime()).toBeGreaterThanOrEqual(START + 300)
    await pause(200)
    expect(released, 'the replaced release never fires').toEqual([['future']])
    timer.close()
  })

  it('releases in the very millisecond of the release time, on a clock that only moves when told', () => {
    // Fake timers make lateness measurable without real time: a loaded machine cannot move it.
    vi.useFakeTimers({now: START})
    const released: (readonly string[])[] = []
    const timer = createReleaseTimer(
      () => new Date(),
      (ids) => released.push(ids),
    )
    timer.arm(release(START + 90_000))
    vi.advanceTimersByTime(89_999)
    expect(released).toEqual([])
    vi.advanceTimersByTime(1)
    expect(released).toEqual([['future']])
    timer.close()
  })

  it('stops waiting when closed, or armed with a snapshot that has nothing scheduled', async () => {
    const {clock} = clockFrom()
    const released: (readonly string[])[] = []
    const timer = createReleaseTimer(clock, (ids) => released.push(ids))
    timer.arm(release(START + 50))
    timer.close()
    const other = createReleaseTimer(clock, (ids) => released.push(ids))
    other.arm(release(START + 50))
    other.arm({nextRelease: undefined})
    await pause(250)
    expect(released).toEqual([])
  })

  it('waits a year without spinning: the delay is clamped to what setTimeout allows', async () => {
    const {clock, reads} = clockFrom()
    const released: (readonly string[])[] = []
    const timer = createReleaseTimer(clock, (ids) => released.push(ids))
    timer.arm(release(START + 365 * 24 * 3600 * 1000))
    await pause(200)
    expect(released).toEqual([])
    expect(reads(), 'the clock was read once, when armed').toBe(1)
    timer.close()
  })
})
