// Integration: `server/main.ts` as its own process, as `npm start` runs it, with a SNAPSHOT_DIR it
// cannot make or write: it must exit 1 with one line naming the variable, before it listens.
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runMainToExit} from '../helpers/main-process.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'snapshot-dir-'))
  await writeFile(join(folder, 'a-file'), '')
})
afterAll(() => rm(folder, {recursive: true, force: true}))

describe('a SNAPSHOT_DIR the server cannot use', () => {
  it.each([
    ['below a regular file', () => join(folder, 'a-file', 'snapshots'), 'ENOTDIR'],
    ['that is a regular file', () => join(folder, 'a-file'), 'EEXIST'],
    // Node's recursive mkdir never settles there: the start would hang without a deadline.
    ['under /proc', () => '/proc/catalog-snapshots', 'no answer within 5000 ms'],
  ])(
    'stops the start, %s, with one line naming SNAPSHOT_DIR',
    async (_, directory, code) => {
      const exit = await runMainToExit({PORT: '0', DATASET_FILE: SAMPLE_DATASET, SNAPSHOT_DIR: directory()})
      expect(exit.code).toBe(1)
      expect(exit.stdout).not.toContain('listening on')
      expect(exit.stderr).not.toMatch(/\n\s+at /)
      expect(exit.stderr.trim().split('\n')).toEqual([
        `catalog-api: SNAPSHOT_DIR: cannot write in ${JSON.stringify(directory())} (${code}). Point SNAPSHOT_DIR at a directory this user can write, or leave it unset.`,
      ])
    },
    30_000,
  )
})
