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

  describe('across rotations of its generations', () => {
    /** A counter with a 10 ms window whose clock the test sets. */
    function counterAt(start: number) {
      const clock = {now: start}
      const counter = new WindowCounter(() => clock.now)
      counter.init({windowMs: 10})
      const at = (now: number, key: string) => {
        clock.now = now
        return counter.increment(key)
      }
      return at
    }

    it('keeps counting a window that began just before a rotation, found in the previous generation', () => {
      const at = counterAt(0)
      at(0, 'opener') // first rotation: the generation runs to 10
      expect(at(9, 'late')).toEqual({totalHits: 1, resetTime: new Date(19)})
      at(10, 'other') // rotates: late moves to the previous generation
      expect(at(18, 'late'), 'moved back from the previous generation, same window').toEqual({
        totalHits: 2,
        resetTime: new Date(19),
      })
      expect(at(19, 'late'), 'its own window ends on time').toEqual({totalHits: 1, resetTime: new Date(29)})
    })

    it('starts a window afresh when it ended exactly now, whichever generation holds it', () => {
      const at = counterAt(0)
      at(0, 'a')
      expect(at(10, 'a'), 'in the previous generation, ended at 10').toEqual({totalHits: 1, resetTime: new Date(20)})
      expect(at(15, 'a').totalHits).toBe(2)
      expect(at(20, 'a'), 'in the current generation, ended at 20').toEqual({totalHits: 1, resetTime: new Date(30)})
    })

    it('forgets a client after two rotations without it, when its window is over anyway', () => {
      const at = counterAt(0)
      expect(at(9, 'a').resetTime).toEqual(new Date(19))
      at(10, 'other') // rotation 1: a in the previous generation
      at(20, 'other') // rotation 2: a dropped; its window ended at 19
      expect(at(20, 'a')).toEqual({totalHits: 1, resetTime: new Date(30)})
    })

    it('rotates once after a long idle gap, without counting stale windows', () => {
      const at = counterAt(0)
      for (let hit = 0; hit < 5; hit++) at(3, 'a')
      expect(at(1_000, 'a')).toEqual({totalHits: 1, resetTime: new Date(1_010)})
      expect(at(1_009, 'a').totalHits).toBe(2)
    })

    it('follows a window length given by init', () => {
      const clock = {now: 0}
      const counter = new WindowCounter(() => clock.now)
      counter.init({windowMs: 50})
      expect(counter.increment('a').resetTime).toEqual(new Date(50))
      clock.now = 49
      expect(counter.increment('a').totalHits).toBe(2)
    })
  })
})
