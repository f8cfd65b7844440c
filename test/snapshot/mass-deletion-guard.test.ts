// The mass-deletion guard on its own: real snapshots of small inline catalogs, a clock the test
// moves, no store, no timers.
import {describe, expect, it} from 'vitest'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {createCatalogBuilder} from '../../server/catalog-builder.ts'
import {guardMassDeletion} from '../../server/snapshot/mass-deletion-guard.ts'
import type {BuildResult} from '../../server/snapshot/build-result.ts'
import {episode, meetup, voice} from '../fixtures/documents.ts'
import {BuildHeld} from '../../server/errors.ts'

const ALL = {kind: 'all'} as const
const CONFIRM_MS = 60_000
const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})

const voices = (count: number, prefix = 'voice'): SanityDocument[] =>
  Array.from({length: count}, (_, index) => voice(`${prefix}-${index}`))
const served = (built: BuildResult) => built.snapshot.counts.voices

/** A guarded builder over `documents`, with a clock the test sets. */
function guarded(initial: SanityDocument[], confirmAfterMs = CONFIRM_MS) {
  const state = {documents: initial, now: new Date('2026-01-01T00:00:00Z')}
  const clock = () => state.now
  const guard = guardMassDeletion(
    createCatalogBuilder({source: createEmbeddedSource('inline', async () => state.documents), config, clock}).build,
    {clock, confirmAfterMs},
  )
  const later = (ms: number) => {
    state.now = new Date(state.now.getTime() + ms)
  }
  return {state, guard, later}
}

describe('a re-read that drops most of the catalog', () => {
  it('is held, and served when a read at least the confirmation time later agrees (not a millisecond before)', async () => {
    const {state, guard, later} = guarded(voices(20))
    const first = await guard.build(undefined, ALL)
    state.documents = voices(3)
    await expect(guard.build(first, ALL)).rejects.toThrow(/^held: the source now has 3 documents where 20 are served/)
    later(CONFIRM_MS - 1)
    await expect(guard.build(first, ALL)).rejects.toThrow(/^held:/)
    later(1)
    expect(served(await guard.build(first, ALL))).toBe(3)
  })

  it('restarts the wait when a later read disagrees with the held one', async () => {
    const {state, guard, later} = guarded(voices(20))
    const first = await guard.build(undefined, ALL)
    state.documents = voices(3)
    await expect(guard.build(first, ALL)).rejects.toThrow(/^held:/)
    later(CONFIRM_MS / 2)
    state.documents = voices(4)
    await expect(guard.build(first, ALL)).rejects.toThrow(/^held: the source now has 4 documents/)
    later(CONFIRM_MS / 2)
    await expect(guard.build(first, ALL), 'the 4 were first seen only half the time ago').rejects.toThrow(/^held:/)
    later(CONFIRM_MS / 2)
    expect(served(await guard.build(first, ALL))).toBe(4)
  })

  it("is served at once after an operator's confirmation, and the next mass deletion is held again", async () => {
    const {state, guard} = guarded(voices(40))
    const first = await guard.build(undefined, ALL)
    state.documents = voices(15)
    await expect(guard.build(first, ALL)).rejects.toThrow(/^held:/)
    guard.confirm()
    const confirmed = await guard.build(first, ALL)
    expect(served(confirmed)).toBe(15)
    state.documents = voices(2)
    await expect(guard.build(confirmed, ALL), 'a confirmation is spent on one build').rejects.toThrow(
      /^held: the source now has 2 documents where 15 are served/,
    )
  })

  it('never holds growth, a first build, or a guard turned off', async () => {
    const {state, guard} = guarded([])
    const empty = await guard.build(undefined, ALL)
    state.documents = voices(100)
    const grown = await guard.build(empty, ALL)
    expect(served(grown)).toBe(100)
    state.documents = voices(200, 'other')
    expect(served(await guard.build(grown, ALL)), 'every document replaced, but more of them').toBe(200)

    const first = guarded([])
    first.state.documents = voices(0)
    expect(served(await first.guard.build(undefined, ALL))).toBe(0)

    const off = guarded(voices(20), 0)
    const before = await off.guard.build(undefined, ALL)
    off.state.documents = []
    expect(served(await off.guard.build(before, ALL))).toBe(0)
  })
})

describe('a first read after a restore that is not its previous snapshot', () => {
  /** A builder over `documents`, and a snapshot of 20 voices restored as a file saved by other code would be. */
  async function restoring() {
    const state = {documents: voices(20), now: new Date('2026-01-01T00:00:00Z')}
    const clock = () => state.now
    const {build} = createCatalogBuilder({
      source: createEmbeddedSource('inline', async () => state.documents),
      config,
      clock,
    })
    const {snapshot: saved} = await build(undefined, ALL)
    return {state, build, saved}
  }

  it("is guarded against the restored snapshot's counts, until a build is served", async () => {
    const {state, build, saved} = await restoring()
    const guard = guardMassDeletion(build, {clock: () => state.now, confirmAfterMs: CONFIRM_MS, restored: saved})
    state.documents = voices(2)
    await expect(guard.build(undefined, ALL)).rejects.toThrow(
      /^held: the source now has 2 documents where 20 are served/,
    )
    state.documents = voices(20, 'other')
    const read = await guard.build(undefined, ALL)
    expect(served(read)).toBe(20)
    state.documents = voices(2)
    expect(served(await guard.build(undefined, ALL)), 'the restored counts were spent on the first served build').toBe(
      2,
    )
  })

  it('is not guarded when nothing was restored', async () => {
    const {state, build} = await restoring()
    const guard = guardMassDeletion(build, {clock: () => state.now, confirmAfterMs: CONFIRM_MS})
    state.documents = voices(2)
    expect(served(await guard.build(undefined, ALL))).toBe(2)
  })
})

describe('thresholds at their boundaries', () => {
  it.each([
    {before: 20, after: 10, held: false, why: 'exactly half is kept: not more than half dropped'},
    {before: 20, after: 9, held: true, why: 'one more than half dropped'},
    {before: 21, after: 10, held: true, why: '10 is less than half of 21'},
    {before: 21, after: 11, held: false, why: '11 is more than half of 21'},
    {before: 10, after: 4, held: true, why: 'a catalog of 10 is guarded'},
    {before: 9, after: 0, held: false, why: 'a catalog of 9 is not guarded: one deletion is already most of it'},
  ])('$before served, $after read: held $held ($why)', async ({before, after, held}) => {
    const {state, guard} = guarded(voices(before))
    const first = await guard.build(undefined, ALL)
    state.documents = voices(after)
    const next = guard.build(first, ALL)
    if (held) await expect(next).rejects.toThrow(/^held:/)
    else expect(served(await next)).toBe(after)
  })
})

describe('the held build', () => {
  it('says what it holds, counting every collection, and when the new content would be served', async () => {
    const {state, guard, later} = guarded([...voices(8), episode('ep-1'), episode('ep-2'), meetup('m-1')])
    const first = await guard.build(undefined, ALL)
    state.documents = voices(5)
    later(1500)
    await expect(guard.build(first, ALL)).rejects.toThrow(
      new BuildHeld(
        'held: the source now has 5 documents where 11 are served, which looks like an emptied or truncated dataset. ' +
          "Still serving the 11; the new content is served if a read at 2026-01-01T00:01:01.500Z or later agrees, or at once after an operator's SIGHUP.",
      ),
    )
    later(30_000)
    await expect(guard.build(first, ALL), 'the same content again: the same time to wait for').rejects.toThrow(
      /a read at 2026-01-01T00:01:01\.500Z or later agrees/,
    )
  })
})
