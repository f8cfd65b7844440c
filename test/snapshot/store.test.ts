import {describe, expect, it, vi} from 'vitest'
import type {BuildResult, PendingChange, SnapshotBuilder} from '../../server/snapshot/build-result.ts'
import type {Restored} from '../../server/snapshot/restored-start.ts'
import {createSnapshotStore} from '../../server/snapshot/store.ts'
import {BuildHeld} from '../../server/errors.ts'

interface PendingBuild {
  change: PendingChange
  resolve: (snapshot: Snapshot) => void
  reject: (error: Error) => void
}

/** A builder whose builds (after the first) finish only when the test says so. */
function controllableBuilder() {
  const pending: PendingBuild[] = []
  const changes: PendingChange[] = []
  const build = async (_previous: BuildResult<Snapshot> | undefined, change: PendingChange) => {
    changes.push(change)
    if (changes.length === 1) return {snapshot: fakeSnapshot('initial')}
    return {snapshot: await new Promise<Snapshot>((resolve, reject) => pending.push({change, resolve, reject}))}
  }
  const next = () => {
    const build = pending.shift()
    if (!build) throw new Error('no build is running')
    return build
  }
  return {build, changes, next}
}

/** The store only holds snapshots; a versioned stand-in is all it needs. */
interface Snapshot {
  version: string
}

function fakeSnapshot(version: string): Snapshot {
  return {version}
}

const settle = () => new Promise((resolve) => setImmediate(resolve))
const documentsOf = (change: PendingChange | undefined) =>
  change?.kind === 'documents' ? [...change.documents.keys()].sort() : change?.kind

describe('snapshot store', () => {
  it('runs one build at a time and merges a burst of changes into a single follow-up build', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore<Snapshot>(builder.build)
    const first = store.refresh([{documentId: 'a', collection: 'episodes'}])
    const burst = [
      store.refresh([{documentId: 'b', collection: 'episodes'}]),
      store.refresh([{documentId: 'c', collection: 'meetups'}]),
      store.refresh([{documentId: 'b', collection: 'episodes'}]),
    ]
    expect(builder.changes.length).toBe(2)
    builder.next().resolve(fakeSnapshot('after a'))
    await first
    await settle()
    expect(builder.changes.length).toBe(3)
    expect(documentsOf(builder.changes[2])).toEqual(['b', 'c'])
    builder.next().resolve(fakeSnapshot('after b, c'))
    expect((await Promise.all(burst)).map((snapshot) => snapshot.version)).toEqual([
      'after b, c',
      'after b, c',
      'after b, c',
    ])
    expect(store.current().version).toBe('after b, c')
    expect(store.status().lastBuild).toMatchObject({kind: 'documents', ok: true, documents: ['b', 'c']})
  })

  it('turns a request for everything, or too many documents, into a full build', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore<Snapshot>(builder.build, {maxDocumentsPerBuild: 2})
    const first = store.refresh([{documentId: 'a', collection: 'episodes'}])
    const many = store.refresh(['x', 'y', 'z'].map((documentId) => ({documentId, collection: 'episodes' as const})))
    builder.next().resolve(fakeSnapshot('1'))
    await first
    await settle()
    expect(builder.changes[2]).toEqual({kind: 'all'})
    builder.next().resolve(fakeSnapshot('2'))
    await many
  })

  it('keeps the last good snapshot when a build fails, and retries the same change with backoff', async () => {
    const builder = controllableBuilder()
    const outcomes: boolean[] = []
    const store = await createSnapshotStore<Snapshot>(builder.build, {retryDelayMs: 5})
    store.onBuild((outcome) => outcomes.push(outcome.ok))
    const failing = store.refresh([{documentId: 'a', collection: 'episodes'}])
    builder.next().reject(new Error('source unreachable'))
    await expect(failing).rejects.toThrow('source unreachable')
    expect(store.current().version).toBe('initial')
    expect(store.status()).toMatchObject({consecutiveFailures: 1, lastBuild: {ok: false, error: 'source unreachable'}})
    expect(store.status().nextRetryAt).toBeInstanceOf(Date)

    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(documentsOf(builder.changes[2])).toEqual(['a'])
    builder.next().reject(new Error('still down'))
    await settle()
    expect(store.status().consecutiveFailures).toBe(2)
    await new Promise((resolve) => setTimeout(resolve, 40))
    builder.next().resolve(fakeSnapshot('recovered'))
    await settle()
    expect(store.current().version).toBe('recovered')
    expect(store.status()).toMatchObject({consecutiveFailures: 0, nextRetryAt: undefined})
    expect(outcomes).toEqual([false, false, true])
    store.close()
  })

  it('schedules no retry once closed', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore<Snapshot>(builder.build, {retryDelayMs: 5})
    store.close()
    const failing = store.refresh([{documentId: 'a', collection: 'episodes'}])
    builder.next().reject(new Error('source unreachable'))
    await expect(failing).rejects.toThrow('source unreachable')
    expect(store.status().nextRetryAt).toBeUndefined()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(builder.changes).toHaveLength(2)
  })

  it('settles once the running build and the follow-up it has both finish', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore<Snapshot>(builder.build)
    const first = store.refresh([{documentId: 'a', collection: 'episodes'}])
    let settled = false
    const settling = store.settled().then(() => (settled = true))
    await settle()
    expect(settled, 'a build runs').toBe(false)
    const followUp = store.refresh([{documentId: 'b', collection: 'episodes'}])
    builder.next().resolve(fakeSnapshot('after a'))
    await first
    await settle()
    expect(settled, 'its follow-up runs').toBe(false)
    builder.next().resolve(fakeSnapshot('after b'))
    await followUp
    await settling
    expect(settled).toBe(true)
  })

  it('resolves a follow-up whose change a request made meanwhile took over with the snapshot of that build', async () => {
    const builder = controllableBuilder()
    const store = await createSnapshotStore<Snapshot>(builder.build)
    const first = store.refresh([{documentId: 'a', collection: 'episodes'}])
    const second = store.refresh([{documentId: 'b', collection: 'episodes'}])
    builder.next().resolve(fakeSnapshot('after a'))
    await first
    // Made before the follow-up starts: this build takes b too, and the follow-up has nothing left to build.
    const third = store.refresh([{documentId: 'c', collection: 'episodes'}])
    expect(documentsOf(builder.changes[2])).toEqual(['b', 'c'])
    const withBoth = fakeSnapshot('after b, c')
    builder.next().resolve(withBoth)
    await third
    await expect(second, 'not the snapshot built before b').resolves.toBe(withBoth)
    expect(builder.changes).toHaveLength(3)
  })

  it('keeps one retry, after the doubled delay, when a follow-up fails after the build before it', async () => {
    vi.useFakeTimers()
    try {
      const builder = controllableBuilder()
      const store = await createSnapshotStore<Snapshot>(builder.build, {retryDelayMs: 1000})
      const first = store.refresh([{documentId: 'a', collection: 'episodes'}])
      const second = store.refresh([{documentId: 'b', collection: 'episodes'}])
      builder.next().reject(new Error('down'))
      await expect(first).rejects.toThrow('down')
      await vi.advanceTimersByTimeAsync(0)
      builder.next().reject(new Error('still down'))
      await expect(second).rejects.toThrow('still down')
      // The retry due after the first failure was replaced by the one due 2 s after the second.
      await vi.advanceTimersByTimeAsync(1999)
      expect(builder.changes).toHaveLength(3)
      await vi.advanceTimersByTimeAsync(1)
      expect(builder.changes).toHaveLength(4)
      store.close()
    } finally {
      vi.useRealTimers()
    }
  })

  it('drops the scheduled retry for a fresh request, so a failure of that one waits the doubled delay', async () => {
    vi.useFakeTimers()
    try {
      const builder = controllableBuilder()
      const store = await createSnapshotStore<Snapshot>(builder.build, {retryDelayMs: 1000})
      const failing = store.refresh([{documentId: 'a', collection: 'episodes'}])
      builder.next().reject(new Error('down'))
      await expect(failing).rejects.toThrow('down')
      const fresh = store.refresh([{documentId: 'b', collection: 'episodes'}])
      // Past the dropped retry's time, while the fresh request still runs.
      await vi.advanceTimersByTimeAsync(1500)
      builder.next().reject(new Error('still down'))
      await expect(fresh).rejects.toThrow('still down')
      await vi.advanceTimersByTimeAsync(0)
      expect(builder.changes, 'nothing runs before the next retry').toHaveLength(3)
      await vi.advanceTimersByTimeAsync(2000)
      expect(builder.changes).toHaveLength(4)
      store.close()
    } finally {
      vi.useRealTimers()
    }
  })

  it('refuses to start without a first snapshot', async () => {
    await expect(createSnapshotStore(() => Promise.reject(new Error('no content')))).rejects.toThrow('no content')
  })
})

describe('a store started from a saved snapshot', () => {
  /** Builds (all of them) finish when the test says; `restored` is what was restored of the saved snapshot. */
  function restoringBuilder(restored: Restored<Snapshot>) {
    const builds: {
      previous: Snapshot | undefined
      change: PendingChange
      resolve: (snapshot: Snapshot) => void
      reject: (error: Error) => void
    }[] = []
    const build: SnapshotBuilder<Snapshot> = async (previous, change) => ({
      snapshot: await new Promise((resolve, reject) =>
        builds.push({previous: previous?.snapshot, change, resolve, reject}),
      ),
    })
    return {build, builds, restored}
  }
  /** What was restored of a saved snapshot: `saved`, as `how` says. */
  const restoring = (saved: Snapshot, how: Omit<NonNullable<Restored['snapshot']>, 'built' | 'savedAt'> = {}) => ({
    snapshot: {built: {snapshot: saved}, savedAt: SAVED_AT, ...how},
  })
  const SAVED_AT = new Date('2026-01-01T00:00:00Z')

  it('serves it at once and reads the source behind it, with it as the previous snapshot', async () => {
    const saved = fakeSnapshot('saved')
    const {build, builds, restored} = restoringBuilder(restoring(saved))
    const store = await createSnapshotStore<Snapshot>(build, {restored})
    expect(store.current()).toBe(saved)
    expect(builds).toEqual([])
    expect(store.status().saved).toEqual({
      savedAt: SAVED_AT,
      refused: undefined,
      otherCode: false,
      behindEdge: false,
      firstRead: 'reading',
    })
    await settle()
    expect(builds.map(({previous, change}) => ({previous, change}))).toEqual([{previous: saved, change: {kind: 'all'}}])
    builds[0]?.resolve(fakeSnapshot('read'))
    await settle()
    expect(store.current().version).toBe('read')
    expect(store.status().saved?.firstRead).toBe('done')
    store.close()
  })

  it('keeps serving it when the first read fails or is held, says which, and retries', async () => {
    const saved = fakeSnapshot('saved')
    const outcomes: boolean[] = []
    const {build, builds, restored} = restoringBuilder(restoring(saved))
    const store = await createSnapshotStore<Snapshot>(build, {retryDelayMs: 5, restored})
    store.onBuild((outcome) => outcomes.push(outcome.ok))
    await settle()
    builds.shift()?.reject(new Error('answered 500'))
    await settle()
    expect(store.current()).toBe(saved)
    expect(store.status()).toMatchObject({
      consecutiveFailures: 1,
      saved: {firstRead: 'failed'},
      lastBuild: {ok: false, error: 'answered 500'},
    })
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(builds[0]?.change).toEqual({kind: 'all'})
    builds.shift()?.reject(new BuildHeld('held: 0 documents where 34 are served'))
    await settle()
    expect(store.current()).toBe(saved)
    expect(store.status().saved?.firstRead).toBe('held')
    expect(outcomes).toEqual([false, false])
    store.close()
  })

  it('builds the first snapshot itself when the saved one was refused, and says why', async () => {
    const {build, builds, restored} = restoringBuilder({
      refused: 'episodes document e-1 does not match its checksum',
    })
    const starting = createSnapshotStore<Snapshot>(build, {restored})
    await settle()
    expect(builds.map(({previous, change}) => ({previous, change}))).toEqual([
      {previous: undefined, change: {kind: 'all'}},
    ])
    builds[0]?.resolve(fakeSnapshot('read'))
    const store = await starting
    expect(store.current().version).toBe('read')
    expect(store.status().saved).toEqual({
      savedAt: undefined,
      refused: 'episodes document e-1 does not match its checksum',
      otherCode: false,
      behindEdge: false,
      firstRead: undefined,
    })
    await settle()
    expect(builds).toHaveLength(1)
  })

  it('serves one older than what the CDN was told only when the first build fails', async () => {
    const saved = fakeSnapshot('saved before the edge moved on')
    const restore = restoring(saved, {behindEdge: true})
    const reading = restoringBuilder(restore)
    const read = createSnapshotStore<Snapshot>(reading.build, {restored: reading.restored})
    await settle()
    reading.builds[0]?.resolve(fakeSnapshot('read'))
    expect((await read).current().version, 'the source answers: the older one is never served').toBe('read')
    expect((await read).status().saved).toMatchObject({savedAt: undefined, behindEdge: true})

    const failing = restoringBuilder(restore)
    const starting = createSnapshotStore<Snapshot>(failing.build, {retryDelayMs: 5, restored: failing.restored})
    await settle()
    failing.builds.shift()?.reject(new Error('answered 500'))
    const store = await starting
    expect(store.current()).toBe(saved)
    expect(store.status().saved).toMatchObject({savedAt: SAVED_AT, behindEdge: true, firstRead: 'failed'})
    store.close()
  })

  it('serves one saved by other code only when the first build fails, then retries', async () => {
    const saved = fakeSnapshot('saved by other code')
    const restore = restoring(saved, {otherCode: true})
    const reading = restoringBuilder(restore)
    const read = createSnapshotStore<Snapshot>(reading.build, {restored: reading.restored})
    await settle()
    reading.builds[0]?.resolve(fakeSnapshot('read'))
    expect((await read).current().version, 'the source answers: the saved one is never served').toBe('read')
    expect((await read).status().saved).toMatchObject({savedAt: undefined, otherCode: false})

    const failing = restoringBuilder(restore)
    const outcomes: (string | undefined)[] = []
    const starting = createSnapshotStore<Snapshot>(failing.build, {retryDelayMs: 5, restored: failing.restored})
    await settle()
    failing.builds.shift()?.reject(new Error('answered 500'))
    const store = await starting
    store.onBuild((outcome, current) => outcomes.push(`${outcome.error} (serving ${current.snapshot.version})`))
    expect(store.current()).toBe(saved)
    expect(store.status().saved).toEqual({
      savedAt: SAVED_AT,
      refused: undefined,
      otherCode: true,
      behindEdge: false,
      firstRead: 'failed',
    })
    // The failed read is the first failed build at once: /status is degraded from the first request.
    expect(store.status()).toMatchObject({consecutiveFailures: 1, lastBuild: {ok: false, error: 'answered 500'}})
    await settle()
    expect(outcomes, 'reported once the caller has the store').toEqual([`answered 500 (serving ${saved.version})`])
    expect(failing.builds, 'retried after the first delay, not at once').toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 30))
    failing.builds.shift()?.resolve(fakeSnapshot('read'))
    await settle()
    expect(store.current().version).toBe('read')
    expect(store.status().saved?.firstRead).toBe('done')
    store.close()
  })

  it('reads the source first when damaged items were left out of the saved one, and serves the rest if that fails', async () => {
    const saved = fakeSnapshot('saved without a damaged item')
    const refused = '1 saved item(s) do not match their checksum and are left out: episodes e-1'
    const restore = {...restoring(saved, {partial: true}), refused}
    const reading = restoringBuilder(restore)
    const read = createSnapshotStore<Snapshot>(reading.build, {restored: reading.restored})
    await settle()
    expect(reading.builds[0]?.previous).toBeUndefined()
    reading.builds[0]?.resolve(fakeSnapshot('read'))
    expect((await read).current().version, 'the source answers: the damaged one is never served').toBe('read')
    expect((await read).status().saved).toEqual({
      savedAt: undefined,
      refused,
      otherCode: false,
      behindEdge: false,
      firstRead: undefined,
    })

    const held = restoringBuilder(restore)
    const starting = createSnapshotStore<Snapshot>(held.build, {retryDelayMs: 5, restored: held.restored})
    await settle()
    held.builds.shift()?.reject(new BuildHeld('held: 0 documents where 33 are served'))
    const store = await starting
    expect(store.current()).toBe(saved)
    expect(store.status().saved).toEqual({
      savedAt: SAVED_AT,
      refused,
      otherCode: false,
      behindEdge: false,
      firstRead: 'held',
    })
    expect(store.status().consecutiveFailures).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(held.builds[0]?.previous, 'retried with the served one as the previous snapshot').toBe(saved)
    held.builds.shift()?.resolve(fakeSnapshot('read'))
    await settle()
    expect(store.current().version).toBe('read')
    expect(store.status().saved?.firstRead).toBe('done')
    store.close()
  })
})
