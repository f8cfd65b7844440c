// The V8 flag heap-growth.ts sets: a build's fixed share while any build runs, and between builds
// the headroom from the heap in use after each full collection. V8's flag cannot be read back, so
// setFlagsFromString is watched, the heap in use is fixed, and the gc entries are handed to the
// observer the module registers.
import {constants} from 'node:perf_hooks'
import {beforeEach, describe, expect, it, vi} from 'vitest'

const watched = vi.hoisted(() => ({
  flags: [] as string[],
  usedHeapSize: 0,
  observers: [] as {callback: (list: {getEntries: () => unknown[]}) => void; options: unknown}[],
}))

vi.mock('node:v8', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:v8')>()
  return {
    ...actual,
    setFlagsFromString: (flags: string) => void watched.flags.push(flags),
    getHeapStatistics: () => ({...actual.getHeapStatistics(), used_heap_size: watched.usedHeapSize}),
  }
})

vi.mock('node:perf_hooks', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:perf_hooks')>()
  class PerformanceObserver {
    readonly #callback: (list: {getEntries: () => unknown[]}) => void
    constructor(callback: (list: {getEntries: () => unknown[]}) => void) {
      this.#callback = callback
    }
    observe(options: unknown) {
      watched.observers.push({callback: this.#callback, options})
    }
  }
  return {...actual, PerformanceObserver}
})

const {boundHeapHeadroom, headroomGrowingPercent, whileBuilding, whileBuildingNow} =
  await import('../../server/snapshot/heap-growth.ts')

const MiB = 1024 * 1024
const gc = (kind: number) => ({name: 'gc', entryType: 'gc', detail: {kind, flags: 0}})
const major = gc(constants.NODE_PERFORMANCE_GC_MAJOR)
const minor = gc(constants.NODE_PERFORMANCE_GC_MINOR)
const report = (...entries: unknown[]) => {
  for (const observer of watched.observers) observer.callback({getEntries: () => entries})
}

beforeEach(() => {
  watched.flags.length = 0
})

describe('the heap-growing flag', () => {
  it('is a build’s share from the first build that starts to the last that ends, then V8’s own factor', async () => {
    let release = () => {}
    const first = whileBuilding(() => new Promise<void>((resolve) => (release = resolve)))
    expect(watched.flags).toEqual(['--heap-growing-percent=20'])
    expect(whileBuildingNow(() => 'made')).toBe('made')
    expect(watched.flags, 'a build inside another changes nothing').toEqual(['--heap-growing-percent=20'])
    release()
    await first
    expect(watched.flags).toEqual(['--heap-growing-percent=20', '--heap-growing-percent=0'])
    expect(whileBuildingNow(() => 1)).toBe(1)
    expect(watched.flags.slice(2)).toEqual(['--heap-growing-percent=20', '--heap-growing-percent=0'])
  })

  it('follows the heap kept by each full collection between builds, and only after a build during one', async () => {
    boundHeapHeadroom()
    expect(watched.observers.map((observer) => observer.options)).toEqual([{entryTypes: ['gc']}])
    watched.usedHeapSize = 400 * MiB
    const percent = headroomGrowingPercent(400 * MiB)
    expect(percent).toBeGreaterThan(20)

    report(minor, {name: 'gc', entryType: 'gc'}, {...minor, detail: null}, {...minor, detail: 'major'})
    report({...major, detail: {flags: 0}})
    expect(watched.flags, 'no full collection reported').toEqual([])

    report(minor, major)
    expect(watched.flags).toEqual([`--heap-growing-percent=${percent}`])

    watched.flags.length = 0
    let release = () => {}
    const build = whileBuilding(() => new Promise<void>((resolve) => (release = resolve)))
    watched.usedHeapSize = 1000 * MiB
    report(major)
    expect(watched.flags, 'a build keeps its share').toEqual(['--heap-growing-percent=20'])
    release()
    await build
    expect(watched.flags).toEqual([
      '--heap-growing-percent=20',
      `--heap-growing-percent=${headroomGrowingPercent(1000 * MiB)}`,
    ])
  })
})
