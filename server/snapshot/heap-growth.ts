// How far V8 lets the heap grow past what its last full collection kept, before collecting again.
// V8's own factor, from the collector's speed against the allocation rate, is up to 4x on a machine
// with memory to spare, which would set a large catalog's peak RSS at two moments: a build, which
// allocates hundreds of MB that die within seconds, and requests whose objects outlive a few young
// collections between builds (bench/results/scale.md). So a build grows the heap by a fixed share,
// and between builds the heap grows at most a bounded number of bytes past what is live; a heap
// smaller than that keeps V8's own factor, since a small heap is collected often and a fixed
// factor only slows its requests.
// V8 reads the flag each time it sets the next collection's limit (src/heap/heap-controller.cc),
// so setting it at run time takes effect from the next full collection on.
import {constants, PerformanceObserver, type PerformanceEntry} from 'node:perf_hooks'
import {getHeapStatistics, setFlagsFromString} from 'node:v8'

/** How much the heap may grow past what survived a full collection, while building. */
const BUILD_HEAP_GROWING_PERCENT = 20
/** Between builds, how many bytes the heap may grow past what survived a full collection. */
export const HEAP_HEADROOM_BYTES = 96 * 1024 * 1024

let running = 0
/** The flag between builds: 0 is V8's own factor. */
let betweenBuilds = 0

function setGrowingPercent(percent: number): void {
  setFlagsFromString(`--heap-growing-percent=${percent}`)
}

function enter(): void {
  if (running++ === 0) setGrowingPercent(BUILD_HEAP_GROWING_PERCENT)
}

function leave(): void {
  if (--running === 0) setGrowingPercent(betweenBuilds)
}

/**
 * The growing percent that keeps a heap with `liveBytes` within HEAP_HEADROOM_BYTES of them, never
 * below a build's; 0 (V8's own factor) for a heap smaller than the headroom, as the sample's is.
 */
export function headroomGrowingPercent(liveBytes: number): number {
  if (liveBytes < HEAP_HEADROOM_BYTES) return 0
  return Math.max(BUILD_HEAP_GROWING_PERCENT, Math.ceil((100 * HEAP_HEADROOM_BYTES) / liveBytes))
}

/**
 * From now on, between builds, keeps the heap within HEAP_HEADROOM_BYTES of what each full
 * collection kept (read as the heap in use when the collection is reported, a little above what it
 * kept). For the process's life: nothing stops it.
 */
export function boundHeapHeadroom(): void {
  new PerformanceObserver((list) => {
    if (!list.getEntries().some(isFullCollection)) return
    betweenBuilds = headroomGrowingPercent(getHeapStatistics().used_heap_size)
    if (running === 0) setGrowingPercent(betweenBuilds)
  }).observe({entryTypes: ['gc']})
}

function isFullCollection(entry: PerformanceEntry): boolean {
  // A gc entry's `detail` ({kind, flags}) is documented; this project's @types/node leaves it out.
  const detail: unknown = Reflect.get(entry, 'detail')
  return (
    typeof detail === 'object' &&
    detail !== null &&
    'kind' in detail &&
    detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR
  )
}

/** Whether a build is running now (the heap is then kept close to what is live). */
export function isBuilding(): boolean {
  return running > 0
}

/** Runs a build (several may overlap) with the heap kept close to what is live. */
export async function whileBuilding<T>(build: () => Promise<T>): Promise<T> {
  enter()
  try {
    return await build()
  } finally {
    leave()
  }
}

/** The same for a build that runs to completion without yielding (a document made on demand). */
export function whileBuildingNow<T>(build: () => T): T {
  enter()
  try {
    return build()
  } finally {
    leave()
  }
}
