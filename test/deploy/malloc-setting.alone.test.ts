// Run alone, after the rest of the suite (npm test's second vitest run): it measures whole processes.
// `npm start` fixes glibc's mmap threshold (MALLOC_MMAP_THRESHOLD_, docs/operating.md): left dynamic,
// freeing a buffer of some MB raises it, and from then on each thread's arena keeps up to twice that
// of what the thread freed, resident, for the process's life.
import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {START_ENV} from '../../support/start-command.ts'

// Memory, not time: on a machine busy many times over, the compressions take a while.
const MEMORY_NOT_TIME_MS = 300_000

/** What a process that compressed in the thread pool holds outside V8's heap and its buffers, MiB. */
async function outsideHeapMiB(environment: Record<string, string>): Promise<number> {
  const withoutMalloc = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MALLOC_')))
  const {stdout} = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', 'test/fixtures/thread-pool-compression.ts'],
    {encoding: 'utf8', env: {...withoutMalloc, ...environment}},
  )
  return Number(stdout)
}

describe("npm start's malloc setting", () => {
  it(
    'gives back what the thread pool freed, which glibc alone keeps',
    async () => {
      expect(Object.keys(START_ENV)).toContain('MALLOC_MMAP_THRESHOLD_')
      // Side by side, each against the other in the same run, five times: on 2026-12-05 single runs
      // read 94 to 146 MiB and, as started, 48 or 79, so one pair could read 0.84. Each side's least:
      // what the process cannot do without, where more is what a run happened to keep. (The least
      // ratio of a pair would pass a broken setting on two unlucky readings.)
      const pairs: [number, number][] = []
      for (let run = 0; run < 5; run++) pairs.push(await Promise.all([outsideHeapMiB({}), outsideHeapMiB(START_ENV)]))
      const glibcAlone = Math.min(...pairs.map(([alone]) => alone))
      const asStarted = Math.min(...pairs.map(([, started]) => started))
      expect(asStarted).toBeLessThan(glibcAlone * 0.8)
    },
    MEMORY_NOT_TIME_MS,
  )
})
