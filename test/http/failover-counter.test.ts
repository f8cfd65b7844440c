import type {IncrementResponse} from 'express-rate-limit'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {createFailoverCounter} from '../../server/http/failover-counter.ts'

/** A shared store whose answers the test releases by hand, as a hung Redis holds them. */
function heldStore() {
  const waiting: ((answer: IncrementResponse) => void)[] = []
  let hits = 0
  return {
    waiting,
    calls: () => hits,
    store: {
      increment: () =>
        new Promise<IncrementResponse>((resolve) => {
          hits += 1
          waiting.push(resolve)
        }),
    },
    answerAll() {
      for (const resolve of waiting.splice(0)) resolve({totalHits: 100, resetTime: undefined})
    },
  }
}

describe('the failover rate-limit counter', () => {
  afterEach(() => vi.useRealTimers())

  it('waits for a hung shared store once, then counts locally at once, enforcing the quota there', async () => {
    vi.useFakeTimers({now: 0})
    const held = heldStore()
    const events: string[] = []
    const counter = createFailoverCounter({
      shared: held.store,
      onLocal: (error) => events.push(`local: ${String(error)}`),
      onShared: () => events.push('shared'),
      now: () => Date.now(),
    })
    counter.init?.({windowMs: 60_000})
    const first = counter.increment('a')
    expect(first).toBeInstanceOf(Promise)
    await vi.advanceTimersByTimeAsync(250)
    expect(await first).toMatchObject({totalHits: 1})
    expect(events).toEqual(['local: Error: the rate-limit store did not answer within 250 ms'])
    expect(counter.localSince()).toEqual(new Date(250))
    // From now on: synchronous local counts, the same client's hits adding up.
    const next = [counter.increment('a'), counter.increment('a'), counter.increment('b')]
    expect(next).toEqual([
      {totalHits: 2, resetTime: new Date(60_250)},
      {totalHits: 3, resetTime: new Date(60_250)},
      {totalHits: 1, resetTime: new Date(60_250)},
    ])
    expect(held.calls(), 'the hung store is not asked again before the probe is due').toBe(1)
    expect(vi.getTimerCount(), 'no timer per request while local').toBe(0)
  })

  it('probes the shared store at most once a second and once at a time, and goes back once it answers in time', async () => {
    vi.useFakeTimers({now: 0})
    const held = heldStore()
    const events: string[] = []
    const counter = createFailoverCounter({
      shared: held.store,
      onLocal: () => events.push('local'),
      onShared: () => events.push('shared'),
      now: () => Date.now(),
    })
    void counter.increment('a')
    await vi.advanceTimersByTimeAsync(250)
    for (let request = 0; request < 100; request++) void counter.increment('a')
    expect(held.calls()).toBe(1)
    vi.setSystemTime(1_250)
    for (let request = 0; request < 100; request++) void counter.increment('a')
    expect(held.calls(), 'one probe, with a request’s own count').toBe(2)
    vi.setSystemTime(5_000)
    void counter.increment('a')
    expect(held.calls(), 'no second probe while one is out').toBe(2)
    // The hung probe answers late (Redis woke up): not yet trusted, but the next probe is allowed.
    held.answerAll()
    await vi.advanceTimersByTimeAsync(0)
    expect(counter.localSince()).toBeDefined()
    void counter.increment('a')
    expect(held.calls()).toBe(3)
    held.answerAll()
    await vi.advanceTimersByTimeAsync(0)
    expect(events).toEqual(['local', 'shared'])
    expect(counter.localSince()).toBeUndefined()
    const shared = counter.increment('a')
    expect(shared, 'counted in the shared store again').toBeInstanceOf(Promise)
    held.answerAll()
    expect(await shared).toEqual({totalHits: 100, resetTime: undefined})
  })

  it('falls back on a store that throws or rejects, and gives up a probe that never answers after 30 s', async () => {
    vi.useFakeTimers({now: 0})
    let calls = 0
    const counter = createFailoverCounter({
      shared: {
        increment: () => {
          calls += 1
          if (calls === 1) throw new Error('down')
          return new Promise<IncrementResponse>(() => undefined)
        },
      },
      onLocal: () => undefined,
      onShared: () => undefined,
      now: () => Date.now(),
    })
    expect(counter.increment('a')).toMatchObject({totalHits: 1})
    vi.setSystemTime(1_000)
    void counter.increment('a')
    expect(calls).toBe(2)
    vi.setSystemTime(30_999)
    void counter.increment('a')
    expect(calls).toBe(2)
    vi.setSystemTime(31_000)
    void counter.increment('a')
    expect(calls, 'the unanswered probe is given up and another sent').toBe(3)
    const rejecting = createFailoverCounter({
      shared: {increment: () => Promise.reject(new Error('gone'))},
      onLocal: () => undefined,
      onShared: () => undefined,
    })
    expect(await rejecting.increment('a')).toMatchObject({totalHits: 1})
    expect(rejecting.localSince()).toBeDefined()
  })
})
