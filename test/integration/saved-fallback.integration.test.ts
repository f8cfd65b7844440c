// Integration: a saved snapshot is a fallback, not only a head start. `npm start` processes with
// SNAPSHOT_DIR over the dataset file or a stand-in of Sanity's query API, and CDN_PURGE=varnish
// pointed at a loopback server that records each PURGE: a restart serves the saved catalog
// whatever the source answers, holds a source emptied or cut short, replaces the saved catalog
// with a good changed source (purging only what changed), and never serves a damaged saved item
// or bytes made by other code.
import {cp, mkdtemp, readFile, readdir, rm, symlink, writeFile, copyFile} from 'node:fs/promises'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {eventually} from '../helpers/eventually.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {startSanityStandIn} from '../helpers/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../helpers/server.ts'

const EPISODE = '/api/v1/episodes/ep-1-why-we-started.json'
const TITLE = '"title":"פרק 1: למה התחלנו פודקאסט על קוד"'
const TOKEN = 'purge-token-0123456789'
const STARTS = 20_000

interface Status {
  status: string
  snapshot: {version: string; counts: {episodes: number}}
  saved_snapshot?: {saved_at: string | null; refused: string | null; first_read: string | null}
  edge: {queue_depth: number; last_purged_version: string | null} | null
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

/** A Varnish stand-in for purges alone: answers 200 and records the keys of each PURGE. */
async function purgeRecorder() {
  const purges: string[][] = []
  const server = createServer((request, response) => {
    if (request.method === 'PURGE') purges.push(String(request.headers['xkey-purge'] ?? '').split(' '))
    response.writeHead(200).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return {
    url: `http://127.0.0.1:${address.port}/`,
    purges,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

let folder: string
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
    const directory = join(folder, 'file')
    environment = {
      PORT: '0',
      DATASET_FILE: join(directory, 'catalog.ndjson'),
      SNAPSHOT_DIR: join(directory, 'snapshots'),
      RECONCILE_INTERVAL_SECONDS: '0',
      MASS_DELETION_CONFIRM_SECONDS: '600',
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: recorder.url,
      CDN_PURGE_TOKEN: TOKEN,
    }
    await cp(SAMPLE_DATASET, environment.DATASET_FILE ?? '')
    // A first run saves the snapshot and purges the edge up to it, so the purge queue knows what the edge holds.
    saved = await run(environment, async (process) => {
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
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
  async function heldOver(dataset: string) {
    await writeFile(environment.DATASET_FILE ?? '', dataset)
    const purgesBefore = recorder.purges.length
    await run(environment, async (process) => {
      expect(await body(process, '/api/v1/all.json')).toEqual({status: 200, etag: saved.etag, text: saved.text})
      await eventually(async () => expect((await status(process)).saved_snapshot?.first_read).toBe('held'), STARTS)
      const held = await status(process)
      expect(held.status).toBe('degraded')
      // A load balancer takes it out of rotation while held; liveness is unaffected.
      expect((await fetch(`${process.baseUrl}/readyz`)).status).toBe(503)
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
    const documents: SanityDocument[] = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
    const standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
    const environment = {
      PORT: '0',
      SANITY_PROJECT_ID: 'embedded',
      SANITY_DATASET: 'production',
      SANITY_API_HOST: standIn.apiHost,
      SANITY_TOKEN: 'read-token',
      SNAPSHOT_DIR: join(folder, 'sanity', 'snapshots'),
      RECONCILE_INTERVAL_SECONDS: '0',
    }
    try {
      const first = await run(environment, async (process) => {
        await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
        return body(process, '/api/v1/all.json')
      })
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

describe('a damaged saved snapshot, or one saved by other code', {timeout: 90_000}, () => {
  let environment: Record<string, string>
  let savedFile: string
  let good: {status: number; etag: string | null; text: string}
  beforeAll(async () => {
    const directory = join(folder, 'damaged')
    environment = {
      PORT: '0',
      DATASET_FILE: join(directory, 'catalog.ndjson'),
      SNAPSHOT_DIR: join(directory, 'snapshots'),
      RECONCILE_INTERVAL_SECONDS: '0',
    }
    savedFile = join(environment.SNAPSHOT_DIR ?? '', 'snapshot.ndjson')
    await cp(SAMPLE_DATASET, environment.DATASET_FILE ?? '')
    good = await run(environment, async (process) => {
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
      return body(process, EPISODE)
    })
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
      expect(process.output()).toContain('could not be read; reading the source in full')
      await eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS)
    })
  }

  const itemLine = (text: string) =>
    text.split('\n').find((line) => line.startsWith('{"data":{"slug":"ep-1-why-we-started"')) ?? ''

  it('is not served when one byte of an item changed', async () => {
    await refused(
      (text) => text.replace(itemLine(text), itemLine(text).replace('"title":"פרק 1:', '"title":"פרק 2:')),
      /do not match their checksum/,
    )
  })

  it('is not served when an item line was swapped for other valid JSON', async () => {
    await refused(
      (text) => text.replace(itemLine(text), JSON.stringify({data: {slug: 'ep-1-elsewhere', title: 'something else'}})),
      /do not match their checksum/,
    )
  })

  it('is not served when the code that makes the bytes changed under the same package version', async () => {
    // A copy of the project whose episode mapper writes other titles; package.json (the version) unchanged.
    const copy = join(folder, 'changed-code')
    await cp('server', join(copy, 'server'), {recursive: true})
    await Promise.all(['package.json', 'package-lock.json'].map((file) => copyFile(file, join(copy, file))))
    await symlink(join(process.cwd(), 'node_modules'), join(copy, 'node_modules'))
    const mapper = join(copy, 'server', 'api', 'v1', 'episode.ts')
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

describe('temporary files a killed save left in SNAPSHOT_DIR', {timeout: 60_000}, () => {
  it('are removed at the next start', async () => {
    const directory = join(folder, 'leftovers')
    const environment = {
      PORT: '0',
      DATASET_FILE: join(directory, 'catalog.ndjson'),
      SNAPSHOT_DIR: join(directory, 'snapshots'),
      RECONCILE_INTERVAL_SECONDS: '0',
    }
    await cp(SAMPLE_DATASET, environment.DATASET_FILE)
    await run(environment, async (process) =>
      eventually(async () => expect(process.output()).toContain('saved the snapshot'), STARTS),
    )
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
