// Integration: `npm start`'s process with SNAPSHOT_DIR on a real read-only tmpfs (mount(8), so
// root; EROFS comes from the kernel) and CDN purging to a recorder. The saved snapshot is an
// optimisation: the server serves, says once why it cannot write, reports degraded, purges from
// memory, and writes the snapshot and the purge queue once the directory is writable again.
import {existsSync, mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {eventually} from '../../support/eventually.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {purgeRecorder} from '../helpers/purge-recorder.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {mountSmallDisk, type SmallDisk} from '../helpers/small-disk.ts'

const statusSchema = z.object({
  status: z.string(),
  saved_snapshot: z.object({write_error: z.string().nullable()}),
  edge: z.object({queue_writable: z.boolean(), purges_sent: z.number()}),
})

let disk: SmallDisk
let recorder: Awaited<ReturnType<typeof purgeRecorder>>
let origin: MainProcess | undefined

beforeAll(async () => {
  disk = mountSmallDisk()
  // The directory as a deploy left it, on a disk since remounted read-only.
  mkdirSync(join(disk.directory, 'snapshots'))
  disk.readOnly()
  recorder = await purgeRecorder()
  origin = await startMainProcess({
    PORT: '0',
    DATASET_FILE: SAMPLE_DATASET,
    SNAPSHOT_DIR: join(disk.directory, 'snapshots'),
    CDN_PURGE: 'varnish',
    CDN_PURGE_URLS: recorder.url,
    CDN_PURGE_TOKEN: 'purge-token-for-the-read-only-test',
  })
}, 60_000)
afterAll(async () => {
  await origin?.stop()
  await recorder?.close()
  disk?.unmount()
})

const status = async () => statusSchema.parse(await (await fetch(`${origin?.baseUrl ?? ''}/status`)).json())
const warnings = () =>
  (origin?.output() ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => z.object({level: z.number(), msg: z.string()}).parse(JSON.parse(line)))
    .filter((line) => line.level >= 40)
    .map((line) => line.msg)

describe('a SNAPSHOT_DIR on a read-only disk', () => {
  it('serves, says why once, is degraded, purges from memory, and writes once the disk is writable', async () => {
    expect((await fetch(`${origin?.baseUrl ?? ''}/api/v1/all.json`)).status).toBe(200)
    await eventually(async () => expect(recorder.purges).toEqual([['catalog']]), 20_000)
    const refused = await status()
    expect(refused.status).toBe('degraded')
    expect(refused.saved_snapshot.write_error).toMatch(/EROFS/)
    expect(refused.edge.queue_writable).toBe(false)
    // Past the first retries: still one line.
    await new Promise((resolve) => setTimeout(resolve, 6000))
    expect(warnings()).toEqual([expect.stringMatching(/^SNAPSHOT_DIR: cannot write in ".+" \(EROFS/)])

    disk.writable()
    await eventually(async () => {
      const now = await status()
      expect(now.saved_snapshot.write_error).toBeNull()
      expect(now.edge.queue_writable).toBe(true)
      expect(now.status).toBe('ok')
    }, 30_000)
    await eventually(
      async () => expect(existsSync(join(disk.directory, 'snapshots', 'snapshot.ndjson'))).toBe(true),
      20_000,
    )
    expect(warnings()).toHaveLength(1)
  }, 90_000)
})
