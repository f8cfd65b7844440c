// Integration: a saved snapshot is a fallback, not only a head start. `npm start` processes with
// SNAPSHOT_DIR over the dataset file or a stand-in of Sanity's query API, and CDN_PURGE=varnish
// pointed at a loopback server that records each PURGE: a restart serves the saved catalog
// whatever the source answers, holds a source emptied or cut short (also when the file was written
// by other code), replaces the saved catalog with a good changed source (purging only what
// changed), serves the rest of a file with a damaged item while Sanity is down, and never serves a
// damaged saved item or bytes made by other code.
import {existsSync, watch} from 'node:fs'
import {cp, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile, copyFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {growDataset} from '../../support/grow-dataset.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {eventually} from '../../support/eventually.ts'
import {asIfSavedByOtherCode} from '../helpers/saved-file.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {purgeRecorder} from '../helpers/purge-recorder.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const EPISODE = '/api/v1/episodes/ep-1-why-we-started.json'
const EPISODE_ID = 'd2f441d8-4dae-4d68-aef3-c1e3e372aefb'
const TITLE = '"title":"פרק 1: למה התחלנו פודקאסט על קוד"'
const TOKEN = 'purge-token-0123456789'
const STARTS = 20_000

interface Status {
  status: string
  snapshot: {version: string; counts: {episodes: number}}
  consecutive_failures: number
  next_retry_at: string | null
  saved_snapshot?: {
    saved_at: string | null
    refused: string | null
    written_by_other_code: boolean
    first_read: string | null
  }
  edge: {queue_depth: number; last_purged_version: string | null} | null
  problems: {document_id: string; severity: string; messages: string[]}[]
}

const status = async (process: MainProcess): Promise<Status> =>
  (await fetch(`${process.baseUrl}/status`)).json() as Promise<Status>
const body = async (process: MainProcess, path: string) => {
  const response = await fetch(`${process.baseUrl}${path}`, {headers: {'Accept-Encoding': 'identity'}})
  return {status: response.status, etag: response.headers.get('etag'), text: await response.text()}
}

async function run<T>(
  environment: Record<string, string>,
  work: (process: MainProcess) => Promise<T>,
  cwd?: string,
): Promise<T> {
  const process = await startMainProcess(environment, {cwd})
  try {
    return await work(process)
  } finally {
    await process.stop()
  }
}

/** Starts a server until it has saved its snapshot, and returns what `read` saw then. */
function firstRun<T>(environment: Record<string, string>, read: (process: MainProcess) => Promise<T>): Promise<T> {
  return run(environment, async (process) => {
    await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
    return read(process)
  })
}

const readSample = async () => parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

let folder: string
/** A server over the dataset file in `folder/name`, saving its snapshot beside it. */
const fileEnvironment = (name: string) => ({
  PORT: '0',
  DATASET_FILE: join(folder, name, 'catalog.ndjson'),
  SNAPSHOT_DIR: join(folder, name, 'snapshots'),
  RECONCILE_INTERVAL_SECONDS: '0',
})
/** A server reading Sanity's query API at `apiHost`, saving its snapshot in `folder/name`. */
const sanityEnvironment = (apiHost: string, name: string) => ({
  PORT: '0',
  SANITY_PROJECT_ID: 'embedded',
  SANITY_DATASET: 'production',
  SANITY_API_HOST: apiHost,
  SANITY_TOKEN: 'read-token',
  SNAPSHOT_DIR: join(folder, name, 'snapshots'),
  RECONCILE_INTERVAL_SECONDS: '0',
})
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-fallback-'))
})
afterAll(() => rm(folder, {recursive: true, force: true}))

describe('a restart over a bad dataset file, with a saved snapshot and CDN purges', {timeout: 90_000}, () => {
  let recorder: Awaited<ReturnType<typeof purgeRecorder>>
  let environment: Record<string, string>
  let original: string
  let saved: {etag: string | null; text: string; version: string}
  beforeAll(async () => {
    recorder = await purgeRecorder()
    original = await readFile(SAMPLE_DATASET, 'utf8')
    environment = {
      ...fileEnvironment('file'),
      MASS_DELETION_CONFIRM_SECONDS: '600',
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: recorder.url,
      CDN_PURGE_TOKEN: TOKEN,
    }
    await cp(SAMPLE_DATASET, environment.DATASET_FILE ?? '')
    // A first run saves the snapshot and purges the edge up to it, so the purge queue knows what the edge holds.
    saved = await firstRun(environment, async (process) => {
      const served = await status(process)
      await eventually(
        async () =>
          expect((await status(process)).edge).toMatchObject({
            queue_depth: 0,
            last_purged_version: served.snapshot.version,
          }),
        STARTS,
      )
      const all = await body(process, '/api/v1/all.json')
      return {etag: all.etag, text: all.text, version: served.snapshot.version}
    })
  }, 60_000)
  afterAll(() => recorder.close())

  /** Starts over `dataset`, waits until the first read is held, and checks that the saved catalog is served and nothing purged. */
  async function heldOver(dataset: string, savedBy: 'this code' | 'other code' = 'this code') {
    await writeFile(environment.DATASET_FILE ?? '', dataset)
    const purgesBefore = recorder.purges.length
    await run(environment, async (process) => {
      expect(await body(process, '/api/v1/all.json')).toEqual({status: 200, etag: saved.etag, text: saved.text})
      await eventually(async () => expect((await status(process)).saved_snapshot?.first_read).toBe('held'), STARTS)
      const held = await status(process)
      expect(held.status).toBe('degraded')
      expect(held.saved_snapshot?.written_by_other_code).toBe(savedBy === 'other code')
      // A load balancer takes it out of rotation while held; liveness is unaffected.
      const readiness = await fetch(`${process.baseUrl}/readyz`)
      expect(readiness.status).toBe(503)
      expect(await readiness.text()).toContain('held by the mass-deletion guard')
      expect((await fetch(`${process.baseUrl}/healthz`)).status).toBe(200)
      expect(held.snapshot.version).toBe(saved.version)
      expect(await body(process, '/api/v1/all.json')).toEqual({status: 200, etag: saved.etag, text: saved.text})
      await eventually(
        async () => expect(process.output()).toMatch(/held: the source now has \d+ documents where \d+ are served/),
        STARTS,
      )
      // A purge would go out at once; a moment more lets one that was planned reach the recorder.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      expect((await status(process)).edge?.queue_depth).toBe(0)
    })
    expect(recorder.purges.slice(purgesBefore)).toEqual([])
  }

  it('holds an emptied dataset file: the saved catalog is served, /status says held, nothing is purged', async () => {
    await heldOver('')
  })

  it('holds a dataset file cut to a tenth of its documents', async () => {
    const lines = original.split('\n').filter((line) => line !== '')
    await heldOver(`${lines.slice(0, Math.ceil(lines.length / 10)).join('\n')}\n`)
  })

  it('holds an emptied dataset file when the saved file was written by other code (an earlier deploy)', async () => {
    const savedFile = join(environment.SNAPSHOT_DIR ?? '', 'snapshot.ndjson')
    const asSaved = await readFile(savedFile)
    await asIfSavedByOtherCode(savedFile)
    try {
      await heldOver('', 'other code')
    } finally {
      await writeFile(savedFile, asSaved)
      await writeFile(environment.DATASET_FILE ?? '', original)
    }
  })

  it('replaces the saved catalog with a good changed file, and purges only what changed', async () => {
    await writeFile(environment.DATASET_FILE ?? '', original.replace(TITLE, '"title":"פרק 1: נערך בזמן שהשרת כבה"'))
    const purgesBefore = recorder.purges.length
    await run(environment, async (process) => {
      await eventually(async () => expect((await body(process, EPISODE)).text).toContain('נערך בזמן שהשרת כבה'), STARTS)
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
      await eventually(async () => expect((await status(process)).edge?.queue_depth).toBe(0), STARTS)
      expect((await status(process)).saved_snapshot).toMatchObject({first_read: 'done', refused: null})
    })
    const keys = recorder.purges.slice(purgesBefore).flat()
    expect(keys.length).toBeGreaterThan(0)
    expect(keys).not.toContain('catalog')
    expect(keys.some((key) => key.includes('ep-1-why-we-started'))).toBe(true)
    await writeFile(environment.DATASET_FILE ?? '', original)
  })
})

describe('a restart while Sanity answers 500, with a saved snapshot', {timeout: 90_000}, () => {
  it('starts, serves the saved catalog, says the first read failed, and reads once Sanity answers again', async () => {
    const documents = await readSample()
    const standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
    const environment = sanityEnvironment(standIn.apiHost, 'sanity')
    try {
      const first = await firstRun(environment, (process) => body(process, '/api/v1/all.json'))
      standIn.failWith(500)
      await run(environment, async (process) => {
        expect(await body(process, '/api/v1/all.json')).toEqual(first)
        await eventually(
          async () =>
            expect(await status(process)).toMatchObject({status: 'degraded', saved_snapshot: {first_read: 'failed'}}),
          60_000,
        )
        expect(await body(process, '/api/v1/all.json')).toEqual(first)
        await eventually(
          async () =>
            expect(process.output()).toMatch(
              /full rebuild failed after \d+ ms \(stand-in failure\); still serving the last good snapshot/,
            ),
          STARTS,
        )
        standIn.failWith(undefined)
        await eventually(
          async () => expect(await status(process)).toMatchObject({status: 'ok', saved_snapshot: {first_read: 'done'}}),
          60_000,
        )
        // The log line may reach the pipe after the GET that shows the read done.
        await eventually(async () => expect(process.output()).toContain('reusing the snapshot'), STARTS)
      })
    } finally {
      standIn.failWith(undefined)
      await standIn.close()
    }
  })
})

describe('a restart while Sanity answers an empty dataset, with a saved snapshot', {timeout: 90_000}, () => {
  it('is held: the saved catalog is served, not ready, and /status says held', async () => {
    let answered: SanityDocument[] = await readSample()
    const standIn = await startSanityStandIn(() => answered, {dataset: 'production'})
    const environment = {...sanityEnvironment(standIn.apiHost, 'sanity-empty'), MASS_DELETION_CONFIRM_SECONDS: '600'}
    try {
      const first = await firstRun(environment, (process) => body(process, '/api/v1/all.json'))
      answered = []
      await run(environment, async (process) => {
        expect(await body(process, '/api/v1/all.json')).toEqual(first)
        await eventually(async () => expect((await status(process)).saved_snapshot?.first_read).toBe('held'), STARTS)
        expect((await fetch(`${process.baseUrl}/readyz`)).status).toBe(503)
        expect(await body(process, '/api/v1/all.json')).toEqual(first)
      })
    } finally {
      await standIn.close()
    }
  })
})

describe('a restart over a saved snapshot with one damaged item, while Sanity answers 500', {timeout: 120_000}, () => {
  it('serves the rest of the saved catalog, never the damaged item, says so, and serves it again once Sanity answers', async () => {
    const documents = await readSample()
    const standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
    const environment = sanityEnvironment(standIn.apiHost, 'sanity-damaged')
    const OTHER = '/api/v1/episodes/ep-2-react-server-components.json'
    try {
      const first = await firstRun(environment, async (process) => ({
        episode: await body(process, EPISODE),
        other: await body(process, OTHER),
        list: await body(process, '/api/v1/episodes.json?limit=100'),
        counts: (await status(process)).snapshot.counts,
      }))
      expect(first.other.status).toBe(200)
      expect(first.list.text).toContain('"slug":"ep-1-why-we-started"')
      const savedFile = join(environment.SNAPSHOT_DIR, 'snapshot.ndjson')
      const text = await readFile(savedFile, 'utf8')
      const line =
        text.split('\n').find((candidate) => candidate.startsWith('{"data":{"slug":"ep-1-why-we-started"')) ?? ''
      await writeFile(savedFile, text.replace(line, line.replace('"title":"פרק 1:', '"title":"פרק 1 פגום:')))

      standIn.failWith(500)
      await run(environment, async (process) => {
        // Never the changed bytes: not the item, not in a list, not in the bulk document.
        expect((await body(process, EPISODE)).status).toBe(404)
        expect(await body(process, OTHER)).toEqual(first.other)
        const list = await body(process, '/api/v1/episodes.json?limit=100')
        expect(list.text).not.toContain('ep-1-why-we-started')
        expect((await body(process, '/api/v1/all.json')).text).not.toContain('פגום')
        const served = await status(process)
        expect(served.snapshot.counts.episodes).toBe(first.counts.episodes - 1)
        expect(served.saved_snapshot?.refused).toBe(
          `1 saved item(s) do not match their checksum and are left out: episodes ${EPISODE_ID}`,
        )
        expect(served.problems).toContainEqual(expect.objectContaining({document_id: EPISODE_ID, severity: 'rejected'}))
        await eventually(
          async () =>
            expect(await status(process)).toMatchObject({
              status: 'degraded',
              consecutive_failures: expect.any(Number),
              next_retry_at: expect.any(String),
              saved_snapshot: {first_read: 'failed', written_by_other_code: false},
            }),
          60_000,
        )
        // As for any saved snapshot of this code not yet confirmed by the source: ready.
        expect((await fetch(`${process.baseUrl}/readyz`)).status).toBe(200)
        expect(process.output()).toContain(
          'reading the source first, serving the rest of the saved snapshot if it fails',
        )

        standIn.failWith(undefined)
        await eventually(async () => expect(await body(process, EPISODE)).toEqual(first.episode), 60_000)
        expect(await status(process)).toMatchObject({
          status: 'ok',
          snapshot: {counts: first.counts},
          saved_snapshot: {first_read: 'done'},
        })
        expect(await body(process, '/api/v1/episodes.json?limit=100')).toEqual(first.list)
        await eventually(
          async () => expect(process.output().match(/saved the snapshot/g)?.length ?? 0).toBeGreaterThan(0),
          STARTS,
        )
      })
      // The next start finds a good file again.
      await run(environment, async (process) => {
        expect(await body(process, EPISODE)).toEqual(first.episode)
        expect((await status(process)).saved_snapshot?.refused).toBeNull()
      })
    } finally {
      standIn.failWith(undefined)
      await standIn.close()
    }
  })
})

describe('a damaged saved snapshot, or one saved by other code', {timeout: 90_000}, () => {
  let environment: Record<string, string>
  let savedFile: string
  let good: {status: number; etag: string | null; text: string}
  beforeAll(async () => {
    environment = fileEnvironment('damaged')
    savedFile = join(environment.SNAPSHOT_DIR ?? '', 'snapshot.ndjson')
    await cp(SAMPLE_DATASET, environment.DATASET_FILE ?? '')
    good = await firstRun(environment, (process) => body(process, EPISODE))
  }, 60_000)

  /** Starts over the saved file as `damage` leaves it: the episode's true bytes are served from the first request, and /status says why. */
  async function refused(damage: (text: string) => string, reason: RegExp) {
    const text = await readFile(savedFile, 'utf8')
    const damaged = damage(text)
    expect(damaged).not.toBe(text)
    await writeFile(savedFile, damaged)
    await run(environment, async (process) => {
      expect(await body(process, EPISODE)).toEqual(good)
      expect((await status(process)).saved_snapshot?.refused).toMatch(reason)
      expect(process.output()).toContain('is damaged: 1 saved item(s) do not match their checksum')
      expect(process.output()).toContain('reading the source first')
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
    })
  }

  const itemLine = (text: string) =>
    text.split('\n').find((line) => line.startsWith('{"data":{"slug":"ep-1-why-we-started"')) ?? ''

  it('is not served when one byte of an item changed', async () => {
    await refused(
      (text) => text.replace(itemLine(text), itemLine(text).replace('"title":"פרק 1:', '"title":"פרק 2:')),
      new RegExp(`do not match their checksum and are left out: episodes ${EPISODE_ID}$`),
    )
  })

  it('is not served when an item line was swapped for other valid JSON', async () => {
    await refused(
      (text) => text.replace(itemLine(text), JSON.stringify({data: {slug: 'ep-1-elsewhere', title: 'something else'}})),
      new RegExp(`do not match their checksum and are left out: episodes ${EPISODE_ID}$`),
    )
  })

  it('is not served when the code that makes the bytes changed under the same package version', async () => {
    // A copy of the project whose episode mapper writes other titles; package.json (the version) unchanged.
    const copy = join(folder, 'changed-code')
    for (const code of ['server', 'catalog']) await cp(code, join(copy, code), {recursive: true})
    await Promise.all(['package.json', 'package-lock.json'].map((file) => copyFile(file, join(copy, file))))
    await symlink(join(process.cwd(), 'node_modules'), join(copy, 'node_modules'))
    const mapper = join(copy, 'catalog', 'v1', 'episode.ts')
    const source = await readFile(mapper, 'utf8')
    expect(source).toContain('      title: row.title,')
    await writeFile(mapper, source.replace('      title: row.title,', '      title: `${row.title} (v2)`,'))
    await run(
      environment,
      async (process) => {
        expect((await body(process, EPISODE)).text).toContain('למה התחלנו פודקאסט על קוד (v2)')
        expect((await status(process)).saved_snapshot).toEqual({
          saved_at: null,
          refused: null,
          written_by_other_code: false,
          behind_edge: false,
          write_error: null,
          first_read: null,
        })
        await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
      },
      copy,
    )
    // ...and the original code does not serve the copy's bytes either.
    await run(environment, async (process) => expect(await body(process, EPISODE)).toEqual(good))
  })
})

describe('temporary files a killed save left in SNAPSHOT_DIR', {timeout: 180_000}, () => {
  it('are left by a real kill -9 during a save, and removed by the next start', async () => {
    const environment = fileEnvironment('killed')
    // About 3,000 documents: a save of a few megabytes, long enough to be killed in the middle of.
    const grown = growDataset(await readSample(), 3_000)
    const text = grown.map((document) => JSON.stringify(document)).join('\n')
    const writeDataset = async (content: string) => {
      await writeFile(`${environment.DATASET_FILE}.next`, content)
      await rename(`${environment.DATASET_FILE}.next`, environment.DATASET_FILE)
    }
    await mkdir(environment.SNAPSHOT_DIR, {recursive: true})
    await writeDataset(text)
    const leftovers = async () =>
      (await readdir(environment.SNAPSHOT_DIR)).filter((name) => /^snapshot\.ndjson\..+\.tmp$/.test(name))
    const saves = (process: MainProcess) => process.output().match(/saved the snapshot/g)?.length ?? 0

    // SIGKILL the moment a temporary file is there. Each round changes the content and re-reads it
    // in full (SIGHUP), which saves; a save that ended before the kill landed is followed by another
    // round, and a process killed after its rename by another process (bounded both ways).
    let left: string[] = []
    for (let attempt = 1; attempt <= 5 && left.length === 0; attempt++) {
      const process = await startMainProcess(environment)
      let killed = false
      const watcher = watch(environment.SNAPSHOT_DIR, (_event, name) => {
        if (killed || !name?.endsWith('.tmp') || !existsSync(join(environment.SNAPSHOT_DIR, name))) return
        killed = true
        process.signal('SIGKILL')
      })
      try {
        for (let round = 1; round <= 3 && !killed; round++) {
          const before = saves(process)
          await writeDataset(text.replace(TITLE, `"title":"פרק 1: נערך ${attempt}.${round}"`))
          process.signal('SIGHUP')
          await eventually(async () => expect(killed || saves(process) > before).toBe(true), 60_000)
        }
      } finally {
        watcher.close()
        await process.stop('SIGKILL')
      }
      left = await leftovers()
    }
    expect(left, 'a save killed before its rename leaves its temporary file').not.toEqual([])
    await run(environment, async (restarted) => {
      // Gone before it listens (its own save may be writing a temporary file of its own meanwhile).
      expect((await readdir(environment.SNAPSHOT_DIR)).filter((name) => left.includes(name))).toEqual([])
      await eventually(
        async () => expect(restarted.output()).toMatch(/saved the snapshot|reusing the snapshot/),
        60_000,
      )
      expect(await leftovers()).toEqual([])
    })
  })

  it('are removed at the next start', async () => {
    const environment = fileEnvironment('leftovers')
    await cp(SAMPLE_DATASET, environment.DATASET_FILE)
    await firstRun(environment, async () => undefined)
    // What `kill -9` during a save leaves: the file written beside, never renamed over.
    const saved = await readFile(join(environment.SNAPSHOT_DIR, 'snapshot.ndjson'))
    await writeFile(
      join(environment.SNAPSHOT_DIR, 'snapshot.ndjson.4242.1764190000000.tmp'),
      saved.subarray(0, saved.length >> 1),
    )
    await writeFile(join(environment.SNAPSHOT_DIR, 'snapshot.ndjson.4243.1764190000001.tmp'), saved)
    await run(environment, async (process) => {
      await eventually(async () => expect(process.output()).toContain('reusing the snapshot'), STARTS)
      expect((await readdir(environment.SNAPSHOT_DIR)).filter((name) => name.endsWith('.tmp'))).toEqual([])
    })
  })
})
