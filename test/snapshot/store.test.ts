import {describe, expect, it} from 'vitest'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {createSnapshotStore} from '../../server/snapshot/store.ts'

/** A builder whose builds finish only when the test says so; each build yields a distinct snapshot. */
function controllableBuilder() {
  const pending: {resolve: (snapshot: Snapshot) => void; reject: (error: Error) => void}[] = []
  let builds = 0
  const build = () => {
    builds += 1
    if (builds === 1) return Promise.resolve(fakeSnapshot(1))
    return new Promise<Snapshot>((resolve, reject) => pending.push({resolve, reject}))
  }
  return {build, pending, builds: () => builds}
}

function fakeSnapshot(version: number): Snapshot {
  return {version: String(version), builtAt: new Date(0), catalog: {episodes: [], meetups: [], voices: [], problems: []}, counts: {episodes: 0, meetups: 0, voices: 0}, paths: [], representation: () => undefined, listPage: () => ({ok: false, reason: 'none'})}
}

describe('snapshot store', () => {
  it('runs one build at a time and coalesces a burst into a single follow-up build', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore(builder.build)
    const first = store.rebuild()
    const burst = [store.rebuild(), store.rebuild(), store.rebuild()]
    expect(builder.builds()).toBe(2)
    builder.pending.shift()?.resolve(fakeSnapshot(2))
    await first
    await Promise.resolve()
    await new Promise((resolve) => setImmediate(resolve))
    expect(builder.builds()).toBe(3)
    builder.pending.shift()?.resolve(fakeSnapshot(3))
    const results = await Promise.all(burst)
    expect(results.map((snapshot) => snapshot.version)).toEqual(['3', '3', '3'])
    expect(store.current().version).toBe('3')
  })

  it('keeps the last good snapshot when a build fails', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore(builder.build)
    const failing = store.rebuild()
    builder.pending.shift()?.reject(new Error('source unreachable'))
    await expect(failing).rejects.toThrow('source unreachable')
    expect(store.current().version).toBe('1')
  })

  it('refuses to start without a first snapshot', async () => {
    await expect(createSnapshotStore(() => Promise.reject(new Error('no content')))).rejects.toThrow('no content')
  })
})
