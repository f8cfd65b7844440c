// Integration: `npm start` with SNAPSHOT_DIR saves the snapshot it read in full and, restarted,
// serves it at once; over an unchanged source nothing more is read, a changed source is read in
// full and replaces it, and other settings are read in full from the start.
import {copyFile, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {eventually} from '../../support/eventually.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

let folder: string
let environment: Record<string, string>
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-warm-'))
  await copyFile(SAMPLE_DATASET, join(folder, 'catalog.ndjson'))
  environment = {
    PORT: '0',
    DATASET_FILE: join(folder, 'catalog.ndjson'),
    SNAPSHOT_DIR: join(folder, 'snapshots'),
    RECONCILE_INTERVAL_SECONDS: '0',
  }
})
afterAll(() => rm(folder, {recursive: true, force: true}))

const PATHS = [
  '/api/v1/all.json',
  '/api/v1/episodes.json',
  '/api/v1/episodes/ep-1-why-we-started.json',
  '/api/v1/voices/noa-levi.json',
  '/sitemap-index.xml',
]

/** Each path's status, ETag, Last-Modified and bytes. */
async function served(process: MainProcess) {
  return Promise.all(
    PATHS.map(async (path) => {
      const response = await fetch(`${process.baseUrl}${path}`)
      return {
        path,
        status: response.status,
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
        body: await response.text(),
      }
    }),
  )
}

async function run<T>(extra: Record<string, string>, work: (process: MainProcess) => Promise<T>): Promise<T> {
  const process = await startMainProcess({...environment, ...extra})
  try {
    return await work(process)
  } finally {
    await process.stop()
  }
}

// Each test starts the server two or three times; under a full parallel run a start can take several seconds.
describe('a restart with SNAPSHOT_DIR', {timeout: 60_000}, () => {
  it('reuses the saved snapshot while the dataset file is unchanged, byte for byte with the same validators', async () => {
    const first = await run({}, async (process) => {
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), 15_000)
      expect(process.output()).not.toContain('reusing the snapshot')
      return served(process)
    })
    const second = await run({}, async (process) => {
      // Served at once; the source's fingerprint, asked next, confirms it.
      const bytes = await served(process)
      await eventually(
        async () =>
          expect(process.output()).toMatch(
            /reusing the snapshot saved at \S+: the source's fingerprint has not changed/,
          ),
        15_000,
      )
      expect(process.output()).not.toMatch(/full rebuild done[\s\S]*saved the snapshot/)
      return bytes
    })
    expect(second).toEqual(first)
  })

  it('reads the file in full when it changed while the server was down, and saves again', async () => {
    const file = environment.DATASET_FILE ?? ''
    const text = await readFile(file, 'utf8')
    await writeFile(
      file,
      text.replace('"title":"פרק 1: למה התחלנו פודקאסט על קוד"', '"title":"פרק 1: נערך בזמן שהשרת כבה"'),
    )
    await run({}, async (process) => {
      // The saved snapshot is served first, then replaced by the file's content.
      await eventually(
        async () =>
          expect(await (await fetch(`${process.baseUrl}/api/v1/episodes/ep-1-why-we-started.json`)).text()).toContain(
            'נערך בזמן שהשרת כבה',
          ),
        15_000,
      )
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), 15_000)
      expect(process.output()).not.toContain('reusing the snapshot')
    })
    await run({}, async (process) => {
      await eventually(async () => expect(process.output()).toContain('reusing the snapshot'), 15_000)
      // Edits after a reuse are still noticed: the file is compared with the bytes that were fingerprinted.
      await writeFile(file, text.replace('"title":"פרק 1: למה התחלנו פודקאסט על קוד"', '"title":"פרק 1: אחרי ההפעלה"'))
      await eventually(
        async () =>
          expect(await (await fetch(`${process.baseUrl}/api/v1/episodes/ep-1-why-we-started.json`)).text()).toContain(
            'אחרי ההפעלה',
          ),
        15_000,
      )
      // ...and applied per document: the file parsed once serving is what the edit is compared with.
      // The log line may reach the pipe after the GET that shows the edit.
      await eventually(async () => expect(process.output()).toMatch(/rebuild of [^\n]+ done/), 15_000)
      expect(process.output()).not.toContain('re-reading the catalog')
    })
  })

  it('reads the source in full when the saved snapshot is damaged, says so, and saves a good one', async () => {
    // A save made over the file as it is now, so the fingerprint matches and the file is read.
    await run({}, async (process) => {
      await eventually(async () => expect(process.output()).toMatch(/saved the snapshot|reusing the snapshot/), 15_000)
    })
    const saved = join(environment.SNAPSHOT_DIR ?? '', 'snapshot.ndjson')
    const bytes = await readFile(saved)
    await writeFile(saved, bytes.subarray(0, bytes.length - 100))
    await run({}, async (process) => {
      expect(process.output()).toContain('could not be read; reading the source in full')
      expect(process.output()).not.toContain('reusing the snapshot')
      expect((await fetch(`${process.baseUrl}/api/v1/all.json`)).status).toBe(200)
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), 15_000)
    })
    await run({}, async (process) =>
      eventually(async () => expect(process.output()).toContain('reusing the snapshot'), 15_000),
    )
  })

  it('does not reuse a snapshot saved under other settings', async () => {
    await run({PUBLIC_BASE_URL: 'https://elsewhere.example'}, async (process) => {
      expect(process.output()).not.toContain('reusing the snapshot')
      expect(await (await fetch(`${process.baseUrl}/api/v1/voices/noa-levi.json`)).text()).toContain(
        'https://elsewhere.example/api/v1/voices/noa-levi.json',
      )
    })
  })
})
