// One "log once" for every line a build or an output would repeat: said the first time, bounded
// under a flood of distinct keys, and said again once forgotten. No sockets.
import {describe, expect, it} from 'vitest'
import {logOnce} from '../../server/observability/log-once.ts'

describe('logOnce', () => {
  it('logs a key the first time only', () => {
    const lines: string[] = []
    const once = logOnce()
    for (const key of ['a', 'b', 'a', 'a', 'b', 'c']) once(key, () => lines.push(key))
    expect(lines).toEqual(['a', 'b', 'c'])
  })

  it('remembers a bounded number of keys: a flood forgets the oldest, which is logged again when it returns', () => {
    const lines: string[] = []
    const once = logOnce(100)
    once('first', () => lines.push('first'))
    for (let index = 0; index < 10_000; index++) once(`flood ${index}`, () => undefined)
    once('first', () => lines.push('first'))
    expect(lines).toEqual(['first', 'first'])
    // The newest of the flood are still remembered.
    once('flood 9999', () => lines.push('flood 9999'))
    expect(lines).toEqual(['first', 'first'])
  })
})
