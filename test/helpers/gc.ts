import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

setFlagsFromString('--expose-gc')
// A context made after the flag is set has `gc`; the test process itself was started without it.
const exposed: unknown = runInNewContext('gc')
if (typeof exposed !== 'function') throw new Error('could not expose gc')
const exposedGc = () => void exposed()

/** A full garbage collection, then a turn of the event loop so FinalizationRegistry callbacks and WeakRefs settle. */
export async function collectGarbage(): Promise<void> {
  for (let round = 0; round < 3; round++) {
    exposedGc()
    await new Promise((resolve) => setImmediate(resolve))
  }
}
