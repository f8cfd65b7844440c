// The store's start from a saved snapshot: what the first read is asked, how a failed one is
// reported, the first read's state after later builds, and a store closed before its first read.
import {describe, expect, it} from 'vitest'
import type {BuildResult, PendingChange} from '../../server/snapshot/build-result.ts'
import type {Restored} from '../../server/snapshot/restored-start.ts'
import {createSnapshotStore} from '../../server/snapshot/store.ts'
import {BuildHeld} from '../../server/errors.ts'

interface Snapshot {
  version: string
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

/** A store started from `saved`, whose builds answer what `answer` says (by their number, from 1). */
function builder(
  saved: Omit<NonNullable<Restored<Snapshot>['snapshot']>, 'built'> & {value: Snapshot},
  answer: (count: number) => Promise<Snapshot>,
) {
  const changes: PendingChange[] = []
  const build = async (_previous: BuildResult<Snapshot> | undefined, change: PendingChange) => {
    changes.push(change)
    return {snapshot: await answer(changes.length)}
  }
  const {value, ...how} = saved
  const restored: Restored<Snapshot> = {snapshot: {built: {snapshot: value}, ...how}}
  return {build, changes, restored}
}

const savedAt = new Date('2026-01-01T00:00:00Z')

describe('a build held by a check', () => {
  it('is named as such', () => {
    const held = new BuildHeld('most of the catalog is gone')
    expect(held.name).toBe('BuildHeld')
    expect(String(held)).toBe('BuildHeld: most of the catalog is gone')
  })
})

describe('a store started from a saved snapshot', () => {
  it("reads everything first when the snapshot is other code's, and reports how long a failed read took", async () => {
    const {build, changes, restored} = builder({value: {version: 'saved'}, savedAt, otherCode: true}, () =>
      Promise.reject(new Error('source down')),
    )
    let now = Date.parse('2026-02-01T00:00:00Z')
    const clock = () => new Date((now += 250))
    const store = await createSnapshotStore<Snapshot>(build, {clock, retryDelayMs: 60_000, restored})
    try {
      expect(changes).toEqual([{kind: 'all'}])
      expect(store.current().version).toBe('saved')
      expect(store.status().lastBuild).toMatchObject({kind: 'full', ok: false, durationMs: 250, error: 'source down'})
    } finally {
      store.close()
    }
  })

  it('keeps its first read done when a later build fails', async () => {
    const {build, restored} = builder({value: {version: 'saved'}, savedAt}, (count) =>
      count === 1 ? Promise.resolve({version: 'read'}) : Promise.reject(new BuildHeld('held')),
    )
    const store = await createSnapshotStore<Snapshot>(build, {retryDelayMs: 60_000, restored})
    try {
      while (store.current().version !== 'read') await settle()
      expect(store.status().saved?.firstRead).toBe('done')
      await expect(store.refresh()).rejects.toThrow('held')
      expect(store.status().saved?.firstRead).toBe('done')
    } finally {
      store.close()
    }
  })

  it('reads nothing once closed before its first read', async () => {
    const {build, changes, restored} = builder({value: {version: 'saved'}, savedAt}, () =>
      Promise.resolve({version: 'read'}),
    )
    const store = await createSnapshotStore<Snapshot>(build, {restored})
    store.close()
    for (let round = 0; round < 5; round++) await settle()
    expect(changes).toEqual([])
    expect(store.current().version).toBe('saved')
  })
})
