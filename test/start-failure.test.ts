// The one-line check of SNAPSHOT_DIR at start, on the real file system.
import {mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'
import {snapshotDirectoryProblem} from '../server/start-failure.ts'

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'start-failure-'))
  await writeFile(join(folder, 'a-file'), '')
})
afterAll(() => rm(folder, {recursive: true, force: true}))

describe('snapshotDirectoryProblem', () => {
  it('makes a missing directory and leaves nothing in it', async () => {
    const directory = join(folder, 'made', 'here')
    expect(await snapshotDirectoryProblem(directory)).toBeUndefined()
    expect(await readdir(directory)).toEqual([])
  })

  it('names SNAPSHOT_DIR, the path and the error code in one line when it cannot write there', async () => {
    const directory = join(folder, 'a-file', 'snapshots')
    expect(await snapshotDirectoryProblem(directory)).toEqual({
      stop: `SNAPSHOT_DIR: cannot write in ${JSON.stringify(directory)} (ENOTDIR). Point SNAPSHOT_DIR at a directory this user can write, or leave it unset.`,
    })
  })

  it('answers at its deadline where making the directory never settles (/proc)', async () => {
    // The deadline on a fake clock, the file system real: when it answers does not depend on the machine's load.
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    try {
      let problem: Awaited<ReturnType<typeof snapshotDirectoryProblem>>
      void snapshotDirectoryProblem('/proc/catalog-snapshots', 300).then((answer) => (problem = answer))
      await vi.advanceTimersByTimeAsync(299)
      expect(problem, 'answered before the deadline').toBeUndefined()
      await vi.advanceTimersByTimeAsync(1)
      expect(problem).toEqual({
        stop: 'SNAPSHOT_DIR: cannot write in "/proc/catalog-snapshots" (no answer within 300 ms). Point SNAPSHOT_DIR at a directory this user can write, or leave it unset.',
      })
    } finally {
      vi.useRealTimers()
    }
  })
})
