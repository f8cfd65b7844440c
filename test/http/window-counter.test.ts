import {describe, expect, it} from 'vitest'
import {WindowCounter} from '../../server/http/window-counter.ts'

describe('WindowCounter', () => {
  it('counts each client in a window that starts with its first request', () => {
    let now = 1_000
    const counter = new WindowCounter(() => now)
    counter.init({windowMs: 10_000})
    expect(counter.increment('a')).toEqual({totalHits: 1, resetTime: new Date(11_000)})
    now = 5_000
    expect(counter.increment('a').totalHits).toBe(2)
    expect(counter.increment('b')).toEqual({totalHits: 1, resetTime: new Date(15_000)})
    now = 11_000
    expect(counter.increment('a')).toEqual({totalHits: 1, resetTime: new Date(21_000)})
    expect(counter.increment('b').totalHits).toBe(2)
  })

  it('answers synchronously, and forgets clients not seen for two windows', () => {
    let now = 0
    const counter = new WindowCounter(() => now)
    counter.init({windowMs: 1_000})
    const first = counter.increment('once')
    expect(first).not.toBeInstanceOf(Promise)
    // Heap use stays flat over many windows of distinct clients: each is dropped two windows later.
    for (let window = 0; window < 50; window++) {
      now = window * 1_000
      for (let client = 0; client < 1_000; client++) counter.increment(`${window}-${client}`)
    }
    now += 2_000
    expect(counter.increment('49-1').totalHits).toBe(1)
    expect(counter.increment('once').totalHits).toBe(1)
  })
})
