import type {IncrementResponse} from 'express-rate-limit'
import type {CounterStore} from './rate-limit.ts'

interface Window {
  hits: number
  resetAt: number
  /** `resetAt` as the store interface gives it, made once per window rather than once per request. */
  resetTime: Date
}

/**
 * Request counts per client, in this process, answered synchronously (the limiter then adds no
 * promise or timer to a request). Each client's window starts with its first request, as in the
 * Redis store. Clients live in two generations rotated every window: a client not seen for two
 * windows is forgotten, so memory holds at most the clients of the last two windows.
 */
export class WindowCounter implements CounterStore {
  #windowMs = 60_000
  #current = new Map<string, Window>()
  #previous = new Map<string, Window>()
  #rotateAt = 0
  readonly #now: () => number

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  init(options: {windowMs: number}): void {
    this.#windowMs = options.windowMs
  }

  increment(key: string): IncrementResponse {
    const now = this.#now()
    if (now >= this.#rotateAt) {
      this.#previous = this.#current
      this.#current = new Map()
      this.#rotateAt = now + this.#windowMs
    }
    let window = this.#current.get(key)
    if (!window) {
      window = this.#previous.get(key)
      this.#previous.delete(key)
    }
    if (!window || window.resetAt <= now)
      window = {hits: 0, resetAt: now + this.#windowMs, resetTime: new Date(now + this.#windowMs)}
    this.#current.set(key, window)
    window.hits += 1
    return {totalHits: window.hits, resetTime: window.resetTime}
  }
}
