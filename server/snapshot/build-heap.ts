// While a build runs, V8's heap grows by a fixed share before each full collection, instead of by
// V8's own factor. A build allocates hundreds of MB that die within seconds, and on a machine with
// memory to spare V8 lets the heap grow to up to four times what survived its last collection
// before collecting again: at 100k documents a cold build reached 745 MB of heap for 330 MB live,
// which set the process's peak RSS. Between builds V8's heuristic runs again, so requests pay
// nothing: the same flag for the whole process cost 5% more CPU per request on the sample.
// V8 reads the flag each time it sets the next collection's limit (src/heap/heap-controller.cc),
// so setting it at run time takes effect from the next collection on.
import {setFlagsFromString} from 'node:v8'

/** How much the heap may grow past what survived a full collection, while building. */
const BUILD_HEAP_GROWING_PERCENT = 20

let running = 0

function enter(): void {
  if (running++ === 0) setFlagsFromString(`--heap-growing-percent=${BUILD_HEAP_GROWING_PERCENT}`)
}

function leave(): void {
  // 0 is V8's default: its own factor, from the collector's speed against the allocation rate.
  if (--running === 0) setFlagsFromString('--heap-growing-percent=0')
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
