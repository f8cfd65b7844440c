import type {IncrementResponse} from 'express-rate-limit'
import {withDeadline} from '../deadline.ts'
import type {CounterStore} from './rate-limit.ts'
import {WindowCounter} from './window-counter.ts'

/** A count that takes longer has failed: a hung store must not hold requests (a healthy Redis answers far sooner). */
const DEADLINE_MS = 250
/** While counting locally, the shared store is asked again at most this often, with one request's count. */
const PROBE_EVERY_MS = 1_000
/** A probe still unanswered after this long is given up, so a store that never answers is still asked again. */
const PROBE_ABANDONED_MS = 30_000

interface FailoverOptions {
  /** The shared count: across replicas, asynchronous (Redis). */
  shared: CounterStore
  /** The shared store missed its deadline or failed: requests are counted in this process from now on. */
  onLocal: (error: unknown) => void
  /** A probe was answered within the deadline: requests are counted in the shared store again. */
  onShared: () => void
  now?: () => number
  deadlineMs?: number
  probeEveryMs?: number
}

export interface FailoverCounter extends CounterStore {
  /** Since when requests are counted in this process (the shared store failed), or undefined while shared. */
  localSince(): Date | undefined
}

/**
 * A shared count that falls back to a count in this process: once the shared store misses its
 * deadline or fails, every request is counted locally and answered at once (the quota then holds
 * per replica), and the shared store is probed in the background, at a bounded rate, until it
 * answers in time again. So a hung Redis costs the requests that were waiting when it hung their
 * deadline, once, and not every request after them.
 */
export function createFailoverCounter(options: FailoverOptions): FailoverCounter {
  const {shared, onLocal, onShared, now = Date.now, deadlineMs = DEADLINE_MS, probeEveryMs = PROBE_EVERY_MS} = options
  const local = new WindowCounter(now)
  let localSince: number | undefined
  let nextProbeAt = 0
  let probeStartedAt: number | undefined

  const goLocal = (error: unknown) => {
    if (localSince !== undefined) return // reported once per outage
    localSince = now()
    nextProbeAt = localSince + probeEveryMs
    onLocal(error)
  }
  const probe = (key: string, at: number) => {
    probeStartedAt = at
    nextProbeAt = at + probeEveryMs
    // The probe's count is a real request's, so the shared count misses nothing it is told.
    let answer: Promise<IncrementResponse> | IncrementResponse
    try {
      answer = shared.increment(key)
    } catch {
      answer = Promise.reject(new Error('the shared store failed'))
    }
    Promise.resolve(answer)
      .then(
        () => {
          if (now() - at > deadlineMs || localSince === undefined) return
          localSince = undefined
          onShared()
        },
        () => undefined,
      )
      .finally(() => {
        if (probeStartedAt === at) probeStartedAt = undefined
      })
  }

  return {
    init(windowOptions) {
      local.init(windowOptions)
      shared.init?.(windowOptions)
    },
    increment(key): IncrementResponse | Promise<IncrementResponse> {
      if (localSince !== undefined) {
        const at = now()
        const probeOut = probeStartedAt !== undefined && at - probeStartedAt < PROBE_ABANDONED_MS
        if (!probeOut && at >= nextProbeAt) probe(key, at)
        return local.increment(key)
      }
      let answer: Promise<IncrementResponse> | IncrementResponse
      try {
        answer = shared.increment(key)
      } catch (error) {
        goLocal(error)
        return local.increment(key)
      }
      if (!(answer instanceof Promise)) return answer
      return withDeadline(answer, deadlineMs, `the rate-limit store did not answer within ${deadlineMs} ms`).catch(
        (error: unknown) => {
          goLocal(error)
          return local.increment(key)
        },
      )
    },
    async shutdown() {
      await shared.shutdown?.()
    },
    localSince: () => (localSince === undefined ? undefined : new Date(localSince)),
  }
}
