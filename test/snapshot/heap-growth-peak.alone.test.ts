// Run alone, after the rest of the suite (npm test's second vitest run, vitest.config.ts): how far a
// heap grows depends on when V8 gets to collect, which whatever else the machine runs moves.
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {z} from 'zod'
import {beforeAll, describe, expect, it} from 'vitest'
import {HEAP_HEADROOM_BYTES} from '../../server/snapshot/heap-growth.ts'

// These measure memory, not time: on a machine busy many times over, a child's churn takes minutes.
const MEMORY_NOT_TIME_MS = 600_000

type Mode = 'plain' | 'building' | 'bounded'

/** How many MiB past its live set a fresh process's heap grew while objects lived a while and died. */
async function growthMiB(mode: Mode): Promise<number> {
  const {stdout} = await promisify(execFile)(process.execPath, ['test/fixtures/heap-headroom.ts', mode], {
    encoding: 'utf8',
  })
  const {live, peak} = z.object({live: z.number(), peak: z.number()}).parse(JSON.parse(stdout))
  return peak - live
}

describe('the heap', () => {
  const growth = new Map<Mode, number>()

  beforeAll(async () => {
    // Side by side, so a busy machine slows all three alike. How many MB past live a heap reaches
    // depends on when V8 gets to collect, which a busy machine moves: so each is only compared with
    // V8's own growth in the same run, never with a fixed number of MB. Peak RSS, measured here until
    // 2026-12-05, put the process's fixed memory in both sides and read a build at 0.85 to 0.92 of
    // V8's own on some machines; the heap in use reads 0.2 to 0.45 (2026-12-05, quiet and busy), and
    // about 1 or more with the flag not set or not reset: the bound of 0.7 sits between.
    const modes: Mode[] = ['plain', 'building', 'bounded']
    const grown = await Promise.all(modes.map(growthMiB))
    modes.forEach((mode, index) => growth.set(mode, grown[index] ?? Number.NaN))
  }, MEMORY_NOT_TIME_MS)

  it('grows as V8 decides once a build is over: the plain process made its live set inside one', () => {
    expect(growth.get('plain')).toBeGreaterThan(3 * (HEAP_HEADROOM_BYTES / 1024 / 1024))
  })

  it('grows by a fixed share of what is live while a build runs', () => {
    expect(growth.get('building')).toBeLessThan((growth.get('plain') ?? 0) * 0.7)
  })

  it('between builds, stays within the headroom of what is live, where V8 alone lets it grow several times over', () => {
    expect(growth.get('bounded')).toBeLessThan((growth.get('plain') ?? 0) * 0.7)
  })
})
