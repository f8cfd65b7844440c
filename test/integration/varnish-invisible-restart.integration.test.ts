// Integration: a restart nobody notices. The origin runs as `npm start` runs it (`server/main.ts`,
// its own process, the embedded dataset from a file it watches, SNAPSHOT_DIR) behind a real
// Varnish with the generated VCL. Purges go to Varnish and to a recorder, so the test knows every
// key a start sends. After edits, a SIGTERM and a start over unchanged content must purge nothing,
// keep the edge's objects, and never serve a title older than the one served before the stop.
import {readFile, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {copySampleDataset, retitleEpisode} from '../helpers/dataset-file.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {purgeRecorder} from '../helpers/purge-recorder.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {originHealthyBehind, startVarnish, type RunningVarnish} from '../../support/varnish.ts'

const TOKEN = 'purge-token-for-the-invisible-restarts'
const statusSchema = z.object({
  edge: z.object({queue_depth: z.number()}),
  saved_snapshot: z.object({
    saved_at: z.string().nullable(),
    first_read: z.string().nullable(),
    behind_edge: z.boolean(),
  }),
})

let directory: string
let datasetFile: string
let originPort: number
let varnish: RunningVarnish | undefined
let origin: MainProcess | undefined
let recorder: Awaited<ReturnType<typeof purgeRecorder>>

const startOrigin = () =>
  startMainProcess({
    PORT: String(originPort),
    PUBLIC_BASE_URL: 'https://api.example',
    DATASET_FILE: datasetFile,
    SNAPSHOT_DIR: join(directory, 'snapshots'),
    CDN_PURGE: 'varnish',
    CDN_PURGE_URLS: `http://127.0.0.1:${varnish?.port ?? 0}/,${recorder.url}`,
    CDN_PURGE_TOKEN: TOKEN,
    RECONCILE_INTERVAL_SECONDS: '0',
    // The test reads the origin as fast as it answers while it starts.
    RATE_LIMIT_QUOTA: '0',
  })

beforeAll(async () => {
  ;({directory, datasetFile} = await copySampleDataset('catalog-invisible-restart-'))
  originPort = await freePort()
  recorder = await purgeRecorder()
  varnish = await startVarnish({backends: [`127.0.0.1:${originPort}`], token: TOKEN, port: await freePort()})
  origin = await startOrigin()
  if (varnish) await originHealthyBehind(varnish)
}, 60_000)
afterAll(async () => {
  await origin?.stop()
  await varnish?.stop()
  await recorder?.close()
  await rm(directory, {recursive: true, force: true})
})

const status = async () => statusSchema.parse(await (await fetch(`http://127.0.0.1:${originPort}/status`)).json())
const titleAt = async (base: string, slug: string) => {
  const response = await rawRequest(`${base}/api/v1/episodes/${slug}.json`)
  return {
    cache: response.headers['x-cache'],
    title: itemEnvelope(episodeSchema).parse(JSON.parse(response.body.toString('utf8'))).data.title,
  }
}
const throughVarnish = (slug: string) => titleAt(`http://127.0.0.1:${varnish?.port ?? 0}`, slug)
const retitle = (slug: string, title: string) => retitleEpisode(datasetFile, slug, title)
async function purgedAndRead() {
  await eventually(async () => {
    const now = await status()
    expect(now.saved_snapshot.first_read ?? 'done').toBe('done')
    expect(now.edge.queue_depth).toBe(0)
  }, 20_000)
}
/**
 * Starts the origin again and reads `slug` from it as soon as it listens, and again until its first
 * read of the source is done: every title it serves meanwhile, in order.
 */
async function restartReading(slug: string): Promise<string[]> {
  origin = await startOrigin()
  const titles: string[] = []
  for (;;) {
    titles.push((await titleAt(origin.baseUrl, slug)).title)
    // Done, or null: the saved snapshot was not served, and the source was read before listening.
    if ((await status()).saved_snapshot.first_read !== 'reading') break
  }
  titles.push((await titleAt(origin.baseUrl, slug)).title)
  return titles
}

describe('a restart after edits', () => {
  it('purges nothing, keeps every object at the edge, and never serves the title from before the edit', async () => {
    const slug = 'ep-27-on-device-ml'
    const untouched = 'ep-3-schema-migrations'
    await purgedAndRead()
    await throughVarnish(untouched)
    expect((await throughVarnish(untouched)).cache).toBe('HIT')
    const title = 'פרק 27: נערך לפני הפריסה'
    await retitle(slug, title)
    await eventually(async () => expect((await throughVarnish(slug)).title).toBe(title), 20_000)
    await purgedAndRead()
    expect((await throughVarnish(slug)).cache).toBe('HIT')

    expect(await origin?.stop()).toBe(0)
    const purgesBefore = recorder.purges.length
    const titles = await restartReading(slug)
    await purgedAndRead()

    expect(new Set(titles)).toEqual(new Set([title]))
    // Served at once from the snapshot saved after the edit, not held back for a read of the source.
    expect((await status()).saved_snapshot).toMatchObject({behind_edge: false, saved_at: expect.any(String)})
    expect(recorder.purges.slice(purgesBefore)).toEqual([])
    expect(await throughVarnish(slug)).toEqual({cache: 'HIT', title})
    expect((await throughVarnish(untouched)).cache).toBe('HIT')
  }, 120_000)

  it('stopped during a burst of 50 edits, the next start serves nothing older and purges only what the burst left', async () => {
    const slug = 'ep-2-react-server-components'
    await purgedAndRead()
    let lastServed = (await titleAt(origin?.baseUrl ?? '', slug)).title
    for (let edit = 1; edit <= 50; edit++) {
      await retitle(slug, `פרק 2: עריכה ${edit} מתוך 50`)
      if (edit === 40) {
        lastServed = (await titleAt(origin?.baseUrl ?? '', slug)).title
        await origin?.stop()
      }
    }
    const purgesBefore = recorder.purges.length
    const titles = await restartReading(slug)
    await purgedAndRead()

    const editNumber = (title: string) => Number(/עריכה (\d+)/.exec(title)?.[1] ?? 0)
    for (const title of titles) expect(editNumber(title)).toBeGreaterThanOrEqual(editNumber(lastServed))
    expect(titles.at(-1)).toBe('פרק 2: עריכה 50 מתוך 50')
    expect((await status()).saved_snapshot).toMatchObject({behind_edge: false, saved_at: expect.any(String)})
    const sent = recorder.purges.slice(purgesBefore).flat()
    expect(sent).not.toContain('catalog')
    expect(sent).toContain(`episodes/${slug}`)
    await eventually(async () => expect((await throughVarnish(slug)).title).toBe('פרק 2: עריכה 50 מתוך 50'), 20_000)
  }, 120_000)

  it('killed before the newest snapshot was saved, the next start serves the source first, never the older file', async () => {
    const slug = 'ep-31-webhooks-done-right'
    await purgedAndRead()
    const saved = join(directory, 'snapshots', 'snapshot.ndjson')
    await eventually(async () => expect((await readFile(saved, 'utf8')).includes(slug)).toBe(true), 20_000)
    const beforeTheEdit = await readFile(saved)
    const title = 'פרק 31: נערך רגע לפני kill -9'
    await retitle(slug, title)
    await eventually(async () => expect((await titleAt(origin?.baseUrl ?? '', slug)).title).toBe(title), 20_000)
    await purgedAndRead()
    await origin?.stop('SIGKILL')
    // As if the kill came before the save of the edit finished: the file from before the edit,
    // and half of the next one beside it.
    await writeFile(saved, beforeTheEdit)
    await writeFile(`${saved}.12345.67890.tmp`, beforeTheEdit.subarray(0, beforeTheEdit.length >> 1))

    const titles = await restartReading(slug)
    expect(new Set(titles)).toEqual(new Set([title]))
    expect((await status()).saved_snapshot.behind_edge).toBe(true)
    await purgedAndRead()
    await eventually(async () => expect((await throughVarnish(slug)).title).toBe(title), 20_000)
  }, 120_000)
})
