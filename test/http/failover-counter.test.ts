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

/** A counter over a held store, on the test's clock, that records each switch to local or shared. */
function watchedCounter(options: {deadlineMs?: number} = {}) {
  const held = heldStore()
  const events: string[] = []
  const counter = createFailoverCounter({
    shared: held.store,
    onLocal: () => events.push('local'),
    onShared: () => events.push('shared'),
    now: () => Date.now(),
    ...options,
  })
  return {held, events, counter}
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
    const {held, events, counter} = watchedCounter()
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

  it('reports one outage once, however many requests were waiting when the store hung', async () => {
    vi.useFakeTimers({now: 0})
    const {events, counter} = watchedCounter()
    const waiting = [Promise.resolve(counter.increment('a')), Promise.resolve(counter.increment('b'))]
    await vi.advanceTimersByTimeAsync(100)
    waiting.push(Promise.resolve(counter.increment('c')))
    await vi.advanceTimersByTimeAsync(250)
    expect(await Promise.all(waiting)).toMatchObject([{totalHits: 1}, {totalHits: 1}, {totalHits: 1}])
    expect(events).toEqual(['local'])
    expect(counter.localSince(), 'since the first deadline missed').toEqual(new Date(250))
  })

  it('counts locally in the window it was given', async () => {
    vi.useFakeTimers({now: 0})
    const counter = createFailoverCounter({
      shared: {increment: () => Promise.reject(new Error('gone'))},
      onLocal: () => undefined,
      onShared: () => undefined,
      now: () => Date.now(),
    })
    counter.init?.({windowMs: 10_000})
    expect(await counter.increment('a')).toEqual({totalHits: 1, resetTime: new Date(10_000)})
  })

  it('answers a store that counts synchronously synchronously, and leaves no deadline timer behind a prompt answer', async () => {
    vi.useFakeTimers({now: 0})
    const sync = createFailoverCounter({
      shared: {increment: () => ({totalHits: 5, resetTime: undefined})},
      onLocal: () => undefined,
      onShared: () => undefined,
    })
    expect(sync.increment('a')).toEqual({totalHits: 5, resetTime: undefined})
    const prompt = createFailoverCounter({
      shared: {increment: () => Promise.resolve({totalHits: 7, resetTime: undefined})},
      onLocal: () => undefined,
      onShared: () => undefined,
    })
    expect(await prompt.increment('a')).toEqual({totalHits: 7, resetTime: undefined})
    expect(vi.getTimerCount()).toBe(0)
  })

  it('waits a whole probe interval after a failed probe, and stays local when a probe throws', async () => {
    vi.useFakeTimers({now: 0})
    let calls = 0
    const events: string[] = []
    const counter = createFailoverCounter({
      shared: {
        increment: () => {
          calls += 1
          throw new Error('down')
        },
      },
      onLocal: () => events.push('local'),
      onShared: () => events.push('shared'),
      now: () => Date.now(),
    })
    void counter.increment('a')
    vi.setSystemTime(1_000)
    void counter.increment('a')
    expect(calls, 'the probe').toBe(2)
    await vi.advanceTimersByTimeAsync(0)
    vi.setSystemTime(1_001)
    void counter.increment('a')
    expect(calls, 'no probe before 2 s').toBe(2)
    expect(events).toEqual(['local'])
    expect(counter.localSince()).toEqual(new Date(0))
    vi.setSystemTime(2_000)
    void counter.increment('a')
    expect(calls).toBe(3)
  })

  it('trusts a probe answered exactly at the deadline', async () => {
    vi.useFakeTimers({now: 0})
    const {held, events, counter} = watchedCounter()
    void counter.increment('a')
    await vi.advanceTimersByTimeAsync(250)
    held.waiting.splice(0)
    vi.setSystemTime(1_250)
    void counter.increment('a')
    vi.setSystemTime(1_500)
    held.answerAll()
    await vi.advanceTimersByTimeAsync(0)
    expect(events).toEqual(['local', 'shared'])
  })

  it('keeps the newer probe out when an abandoned one answers late, and goes back to shared once', async () => {
    vi.useFakeTimers({now: 0})
    const {held, events, counter} = watchedCounter({deadlineMs: 60_000})
    void counter.increment('a')
    await vi.advanceTimersByTimeAsync(60_000)
    held.waiting.splice(0)
    const start = 60_000
    vi.setSystemTime(start + 1_000)
    void counter.increment('a')
    const [abandoned] = held.waiting.splice(0)
    vi.setSystemTime(start + 31_000)
    void counter.increment('a')
    expect(held.calls(), 'the abandoned probe and a new one').toBe(3)
    abandoned?.({totalHits: 1, resetTime: undefined})
    await vi.advanceTimersByTimeAsync(0)
    expect(events, 'the abandoned probe is answered within the deadline').toEqual(['local', 'shared'])
    // Counting is shared again: the new probe, still out, answers in time and changes nothing.
    held.answerAll()
    await vi.advanceTimersByTimeAsync(0)
    expect(events).toEqual(['local', 'shared'])
  })

  it('keeps the newer probe out when an abandoned one answers after its deadline', async () => {
    vi.useFakeTimers({now: 0})
    const held = heldStore()
    const counter = createFailoverCounter({
      shared: held.store,
      onLocal: () => undefined,
      onShared: () => undefined,
      now: () => Date.now(),
    })
    void counter.increment('a')
    await vi.advanceTimersByTimeAsync(250)
    held.waiting.splice(0)
    vi.setSystemTime(1_250)
    void counter.increment('a')
    const [abandoned] = held.waiting.splice(0)
    vi.setSystemTime(31_250)
    void counter.increment('a')
    expect(held.calls()).toBe(3)
    abandoned?.({totalHits: 1, resetTime: undefined})
    await vi.advanceTimersByTimeAsync(0)
    expect(counter.localSince()).toBeDefined()
    vi.setSystemTime(40_000)
    void counter.increment('a')
    expect(held.calls(), 'the newer probe is still out').toBe(3)
  })

  it('shuts the shared store down, or nothing when it has no shutdown', async () => {
    let shut = 0
    const counter = createFailoverCounter({
      shared: {increment: () => ({totalHits: 1, resetTime: undefined}), shutdown: async () => void (shut += 1)},
      onLocal: () => undefined,
      onShared: () => undefined,
    })
    await counter.shutdown?.()
    expect(shut).toBe(1)
    const bare = createFailoverCounter({
      shared: {increment: () => ({totalHits: 1, resetTime: undefined})},
      onLocal: () => undefined,
      onShared: () => undefined,
    })
    await expect(bare.shutdown?.()).resolves.toBeUndefined()
  })
})
