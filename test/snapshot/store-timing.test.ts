// The store's timing and bookkeeping under fake timers and a clock the test moves: retry delays,
// what /status is told, and which changes merge into which build.
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import type {BuildResult, PendingChange, SnapshotBuilder} from '../../server/snapshot/build-result.ts'
import {createSnapshotStore, type StoreOptions} from '../../server/snapshot/store.ts'

interface Snapshot {
  version: string
}

let now = 0
const clock = () => new Date(now)

beforeEach(() => {
  vi.useFakeTimers({now: 0})
  now = Date.parse('2026-01-01T00:00:00Z')
})
afterEach(() => vi.useRealTimers())

/** A builder whose builds after the first do what `outcome` says, taking `durationMs` of the test's clock. */
function builder(outcome: (change: PendingChange, count: number) => Snapshot | Error, durationMs = 0) {
  const changes: PendingChange[] = []
  const build = async (_previous: BuildResult<Snapshot> | undefined, change: PendingChange) => {
    changes.push(change)
    if (changes.length === 1) return {snapshot: {version: 'initial'}}
    now += durationMs
    const result = outcome(change, changes.length - 1)
    if (result instanceof Error) throw result
    return {snapshot: result}
  }
  return {build, changes}
}

const store = (build: SnapshotBuilder<Snapshot>, options: StoreOptions<Snapshot> = {}) =>
  createSnapshotStore<Snapshot>(build, {clock, ...options})
const episode = (documentId: string) => ({documentId, collection: 'episodes' as const})
const failing = () => builder(() => new Error('down'))

describe('retries', () => {
  it('wait 1 s after the first failure, doubling each time up to a minute, and /status says when', async () => {
    const {build, changes} = failing()
    const snapshots = await store(build)
    await expect(snapshots.refresh()).rejects.toThrow('down')
    const delays: number[] = []
    for (let failure = 1; failure <= 8; failure++) {
      const retryAt = snapshots.status().nextRetryAt?.getTime() ?? Number.NaN
      delays.push(retryAt - now)
      const builds = changes.length
      await vi.advanceTimersByTimeAsync(retryAt - now - 1)
      expect(changes.length, `not before the retry ${failure}`).toBe(builds)
      now = retryAt
      await vi.advanceTimersByTimeAsync(1)
      expect(changes.length, `retry ${failure}`).toBe(builds + 1)
      expect(snapshots.status().consecutiveFailures).toBe(failure + 1)
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000])
    snapshots.close()
  })

  it('take the configured first delay and cap', async () => {
    const {build} = failing()
    const snapshots = await store(build, {retryDelayMs: 100, maxRetryDelayMs: 250})
    await expect(snapshots.refresh()).rejects.toThrow()
    expect((snapshots.status().nextRetryAt?.getTime() ?? 0) - now).toBe(100)
    await vi.advanceTimersByTimeAsync(100)
    expect((snapshots.status().nextRetryAt?.getTime() ?? 0) - now).toBe(200)
    await vi.advanceTimersByTimeAsync(200)
    expect((snapshots.status().nextRetryAt?.getTime() ?? 0) - now).toBe(250)
    snapshots.close()
  })

  it('are not waited for by a fresh request, which runs at once and clears the scheduled one', async () => {
    let fail = true
    const {build, changes} = builder(() => (fail ? new Error('down') : {version: 'fixed'}))
    const snapshots = await store(build)
    await expect(snapshots.refresh([episode('a')])).rejects.toThrow()
    fail = false
    const fixed = snapshots.refresh([episode('b')])
    expect(snapshots.status().nextRetryAt).toBeUndefined()
    expect((await fixed).version).toBe('fixed')
    expect(changes[2]).toEqual({
      kind: 'documents',
      documents: new Map([
        ['a', 'episodes'],
        ['b', 'episodes'],
      ]),
    })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(changes, 'the cancelled retry never ran').toHaveLength(3)
  })

  it('are cancelled by close', async () => {
    const {build, changes} = failing()
    const snapshots = await store(build)
    await expect(snapshots.refresh()).rejects.toThrow()
    snapshots.close()
    await vi.advanceTimersByTimeAsync(120_000)
    expect(changes).toHaveLength(2)
  })

  it('do not keep the process alive', async () => {
    const {build} = failing()
    const snapshots = await store(build)
    const unref = vi.spyOn(globalThis, 'setTimeout')
    await expect(snapshots.refresh()).rejects.toThrow()
    const timer = unref.mock.results.at(-1)?.value as NodeJS.Timeout
    expect(timer.hasRef()).toBe(false)
    snapshots.close()
  })
})

describe('what /status is told', () => {
  it('starts with the first build as the last success and nothing else', async () => {
    const snapshots = await store(builder(() => ({version: 'x'})).build)
    expect(snapshots.status()).toEqual({
      lastBuild: undefined,
      lastSuccessAt: new Date('2026-01-01T00:00:00Z'),
      consecutiveFailures: 0,
      nextRetryAt: undefined,
    })
    expect(snapshots.current()).toEqual({version: 'initial'})
  })

  it('records each build: its kind, when it started, how long it took, its documents, its error', async () => {
    let fail = false
    const outcomes: unknown[] = []
    const {build} = builder(() => (fail ? new Error('source unreachable') : {version: 'v'}), 250)
    const snapshots = await store(build)
    snapshots.onBuild((outcome) => outcomes.push(outcome))
    const started = new Date(now)
    await snapshots.refresh([episode('b'), episode('a')])
    expect(snapshots.status()).toEqual({
      lastBuild: {kind: 'documents', ok: true, startedAt: started, durationMs: 250, documents: ['b', 'a']},
      lastSuccessAt: new Date(started.getTime() + 250),
      consecutiveFailures: 0,
      nextRetryAt: undefined,
    })
    fail = true
    await expect(snapshots.refresh()).rejects.toThrow()
    expect(snapshots.status().lastBuild).toEqual({
      kind: 'full',
      ok: false,
      startedAt: new Date(started.getTime() + 250),
      durationMs: 250,
      error: 'source unreachable',
    })
    expect(snapshots.status().lastSuccessAt, 'unchanged by a failure').toEqual(new Date(started.getTime() + 250))
    expect(snapshots.status().nextRetryAt).toEqual(new Date(started.getTime() + 500 + 1000))
    expect(outcomes).toEqual([expect.objectContaining({ok: true}), expect.objectContaining({ok: false})])
    snapshots.close()
  })

  it('words an error that is not an Error as text too', async () => {
    const snapshots = await store(async (previous) => {
      if (!previous) return {snapshot: {version: 'initial'}}
      throw 'plain text' // eslint-disable-line @typescript-eslint/only-throw-error
    })
    await expect(snapshots.refresh()).rejects.toBe('plain text')
    expect(snapshots.status().lastBuild?.error).toContain('plain text')
    snapshots.close()
  })
})

describe('which changes go into a build', () => {
  it('reads everything for a refresh naming no documents', async () => {
    const {build, changes} = builder(() => ({version: 'v'}))
    const snapshots = await store(build)
    await snapshots.refresh([])
    await snapshots.refresh()
    expect(changes.slice(1)).toEqual([{kind: 'all'}, {kind: 'all'}])
  })

  it('keeps up to 100 documents in one build by default, and reads everything past that', async () => {
    const {build, changes} = builder(() => ({version: 'v'}))
    const snapshots = await store(build)
    const documents = (count: number, prefix: string) =>
      Array.from({length: count}, (_, index) => episode(`${prefix}${index}`))
    await snapshots.refresh(documents(100, 'a'))
    await snapshots.refresh(documents(101, 'b'))
    expect(changes[1]?.kind).toBe('documents')
    expect(changes[1]?.kind === 'documents' && changes[1].documents.size).toBe(100)
    expect(changes[2]).toEqual({kind: 'all'})
  })

  it('merges documents asked for while a full read waits into that full read', async () => {
    let release: (() => void) | undefined
    const changes: PendingChange[] = []
    const snapshots = await store(async (previous, change) => {
      changes.push(change)
      if (previous && changes.length === 2) await new Promise<void>((resolve) => (release = resolve))
      return {snapshot: {version: String(changes.length)}}
    })
    const running = snapshots.refresh([episode('a')])
    const all = snapshots.refresh()
    const more = snapshots.refresh([episode('b')])
    release?.()
    await running
    expect((await all).version).toBe('3')
    expect(await more).toBe(await all)
    expect(changes.slice(1)).toEqual([{kind: 'documents', documents: new Map([['a', 'episodes']])}, {kind: 'all'}])
  })

  it('answers a follow-up that an earlier build already covered with the current snapshot, building nothing', async () => {
    let fail = true
    const {build, changes} = builder(() => (fail ? new Error('down') : {version: 'v'}))
    const snapshots = await store(build)
    await expect(snapshots.refresh([episode('a')])).rejects.toThrow()
    fail = false
    // The retry runs the failed change; a refresh made meanwhile follows it, with nothing left to do.
    await vi.advanceTimersByTimeAsync(1000)
    expect(changes).toHaveLength(3)
    expect(snapshots.current().version).toBe('v')
  })
})
