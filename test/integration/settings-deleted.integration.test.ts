// Integration: the podcast settings document deleted or never there, over real HTTP. Starts the
// app as `npm start` does (createCatalogService) over a copy of the embedded dataset in a temporary
// folder, with SNAPSHOT_DIR, and edits that file as an editor's export or a Studio sync would: the
// file watch rebuilds. A deleted settings document keeps the last good channel (and its restart
// keeps it too); a first start without one answers /feed.xml with a 503 that says what to publish.
import {copyFile, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseFeed} from 'podcast-partytime'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {readProblem} from '../helpers/contract.ts'
import {eventually} from '../../support/eventually.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const SETTINGS = 'podcastSettings'
const statusSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  problems: z.array(
    z.object({document_id: z.string(), collection: z.string(), severity: z.string(), messages: z.array(z.string())}),
  ),
})

let folder: string
let original: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'settings-deleted-'))
  original = await readFile(SAMPLE_DATASET, 'utf8')
})
afterAll(() => rm(folder, {recursive: true, force: true}))

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '')
const idOf = (line: string) => z.object({_id: z.string()}).parse(JSON.parse(line))._id
const withoutSettings = (text: string) =>
  `${lines(text)
    .filter((line) => idOf(line) !== SETTINGS)
    .join('\n')}\n`

/** Each call a server over `file`, saving its snapshots to `snapshots`, that only the file watch rebuilds. */
const serve = (file: string, snapshots: string) =>
  startTestServer({
    environment: {DATASET_FILE: file, SNAPSHOT_DIR: snapshots, RECONCILE_INTERVAL_SECONDS: '0'},
  })
const statusOf = async (server: TestServer) =>
  statusSchema.parse(await (await fetch(`${server.baseUrl}/status`)).json())
async function feedOf(server: TestServer) {
  const response = await rawRequest(`${server.baseUrl}/feed.xml`)
  expect(response.status).toBe(200)
  const feed = parseFeed(response.body.toString('utf8'))
  return {title: feed?.title, items: feed?.items.map((item) => item.title) ?? []}
}
const settingsHeld = {
  document_id: SETTINGS,
  collection: 'settings',
  severity: 'kept',
  messages: [expect.stringMatching(/deleted or unpublished.*last good channel.*published again/)],
}
/** Whether a snapshot file in `directory` holds the settings as held back (its header lists the problems). */
async function savedWithSettingsHeld(directory: string): Promise<boolean> {
  const files = await readdir(directory).catch(() => [])
  const texts = await Promise.all(files.map((name) => readFile(join(directory, name), 'utf8').catch(() => '')))
  return texts.some((text) => text.split('\n', 1)[0]?.includes('deleted or unpublished'))
}

describe('the podcast settings document deleted', () => {
  it('keeps the last good channel in /feed.xml, degraded in /status, through edits and a restart, until published again', async () => {
    const file = join(folder, 'deleted.ndjson')
    const snapshots = join(folder, 'deleted-snapshots')
    await copyFile(SAMPLE_DATASET, file)
    let server = await serve(file, snapshots)
    try {
      const before = await feedOf(server)
      expect(before.title).toBe('קוד טוקס')
      expect(await statusOf(server)).toMatchObject({status: 'ok', problems: []})

      await writeFile(file, withoutSettings(original))
      await eventually(async () =>
        expect(await statusOf(server)).toEqual(expect.objectContaining({status: 'degraded', problems: [settingsHeld]})),
      )
      expect(await feedOf(server)).toEqual(before)

      // The items still follow the episodes: an edit of one reaches the feed under the held channel.
      const [firstTitle] = before.items
      if (firstTitle === undefined) throw new Error('the sample feed has no items')
      const edited = withoutSettings(original).replace(JSON.stringify(firstTitle).slice(1, -1), 'כותרת חדשה')
      await writeFile(file, edited)
      await eventually(async () => expect((await feedOf(server)).items[0]).toBe('כותרת חדשה'))
      expect((await feedOf(server)).title).toBe(before.title)
      expect((await statusOf(server)).problems).toEqual([settingsHeld])

      // A restart serves what was saved: the held channel, and the problem that says so.
      await eventually(async () => expect(await savedWithSettingsHeld(snapshots)).toBe(true))
      await server.close()
      server = await serve(file, snapshots)
      expect((await feedOf(server)).title).toBe(before.title)
      expect(await statusOf(server)).toMatchObject({status: 'degraded', problems: [settingsHeld]})

      // Published again: the settings are served, and nothing is held back.
      await writeFile(file, original)
      await eventually(async () => expect(await statusOf(server)).toMatchObject({status: 'ok', problems: []}))
      expect(await feedOf(server)).toEqual(before)
    } finally {
      await server.close()
    }
  })
})

describe('no podcast settings document on a first start', () => {
  it('answers /feed.xml with a 503 problem that says what to publish, and /status names the settings', async () => {
    const file = join(folder, 'never.ndjson')
    await writeFile(file, withoutSettings(original))
    const server = await serve(file, join(folder, 'never-snapshots'))
    try {
      const response = await fetch(`${server.baseUrl}/feed.xml`)
      expect(response.headers.get('retry-after')).toBe('60')
      const problem = await readProblem(response, 503)
      expect(problem.detail).toMatch(
        /^There is no podcast settings document, so there is no feed: publish one \(Sanity type podcastSettings/,
      )
      for (const field of ['title', 'description', 'author', 'owner', 'artwork', 'categories', 'copyright'])
        expect(problem.detail).toContain(field)
      expect(await statusOf(server)).toMatchObject({
        status: 'degraded',
        problems: [{document_id: SETTINGS, collection: 'settings', severity: 'rejected'}],
      })
      // The API does not depend on the settings.
      expect((await fetch(`${server.baseUrl}/api/v1/episodes.json`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
