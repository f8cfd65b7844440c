// Integration: `npm start`'s own process with WEBSUB_HUB and PODCAST_INDEX_PUBNOTIFY_URL pointing
// at a local hub stand-in. The feed names the hub; an edit of the dataset file that changes the
// feed makes the server tell both, retrying a hub that fails; an edit the feed does not show
// tells nobody.
import {copyFile, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {bodyText} from '../../support/sanity-stand-in.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

interface HubRequest {
  method: string
  path: string
  body: string
  status: number
}

let folder: string
let hub: Server
let hubUrl: string
let received: HubRequest[]
/** How many of the next hub requests fail with 503, as a hub that is briefly down would. */
let failNext = 0
let server: MainProcess

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-websub-'))
  await copyFile(SAMPLE_DATASET, join(folder, 'catalog.ndjson'))
  received = []
  hub = createServer(async (request, response) => {
    const body = await bodyText(request)
    const status = failNext > 0 ? (failNext--, 503) : 204
    received.push({method: request.method ?? '', path: request.url ?? '', body, status})
    response.writeHead(status).end()
  })
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve))
  const address = hub.address()
  if (address === null || typeof address === 'string') throw new Error('the hub stand-in has no port')
  hubUrl = `http://127.0.0.1:${address.port}`
  server = await startMainProcess({
    PORT: '0',
    PUBLIC_BASE_URL: 'http://api.test',
    DATASET_FILE: join(folder, 'catalog.ndjson'),
    RECONCILE_INTERVAL_SECONDS: '0',
    WEBSUB_HUB: `${hubUrl}/hub`,
    PODCAST_INDEX_PUBNOTIFY_URL: `${hubUrl}/api/1.0/hub/pubnotify`,
  })
})
afterAll(async () => {
  await server?.stop()
  hub?.close()
  await rm(folder, {recursive: true, force: true})
})

/** Rewrites one document's line of the dataset file, as an editor's export would. */
async function editDocument(id: string, edit: (document: SanityDocument) => SanityDocument) {
  const file = join(folder, 'catalog.ndjson')
  const documents = parseNdjson(await readFile(file, 'utf8'), file)
  await writeFile(
    file,
    `${documents.map((document) => JSON.stringify(document._id === id ? edit(document) : document)).join('\n')}\n`,
  )
}

const sample = async () => parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

const feedUrl = 'http://api.test/feed.xml'
const publishPing = {
  method: 'POST',
  path: '/hub',
  body: new URLSearchParams({'hub.mode': 'publish', 'hub.url': feedUrl}).toString(),
}
const pubnotify = {method: 'GET', path: `/api/1.0/hub/pubnotify?url=${encodeURIComponent(feedUrl)}`, body: ''}

describe('WebSub', () => {
  it('names the hub in the feed, and pings nobody for the snapshot it started with', async () => {
    const xml = await (await fetch(`${server.baseUrl}/feed.xml`)).text()
    expect(xml).toContain(`<atom:link href="${hubUrl}/hub" rel="hub"/>`)
    expect(received).toEqual([])
  })

  it('tells the hub and Podcast Index when an edit changes the feed, retrying a hub that failed', async () => {
    failNext = 1
    const episode = (await sample()).find(
      (document) => document._type === 'episode' && document['audioUrl'] && !document._id.startsWith('drafts.'),
    )
    await editDocument(episode?._id ?? '', (document) => ({
      ...document,
      title: 'כותרת חדשה לפיד',
      _updatedAt: '2030-01-01T00:00:00Z',
    }))
    await expect
      .poll(
        () =>
          received.filter((request) => request.status === 204).map(({method, path, body}) => ({method, path, body})),
        {interval: 50},
      )
      .toEqual(expect.arrayContaining([publishPing, pubnotify]))
    expect(received.filter((request) => request.status === 503)).toHaveLength(1)
    expect(await (await fetch(`${server.baseUrl}/feed.xml`)).text()).toContain('כותרת חדשה לפיד')
  })

  it('tells nobody when an edit leaves the feed as it was', async () => {
    const before = received.length
    const meetup = (await sample()).find(
      (document) => document._type === 'meetup' && !document._id.startsWith('drafts.'),
    )
    const slug = z.object({current: z.string()}).parse(meetup?.['slug']).current
    await editDocument(meetup?._id ?? '', (document) => ({
      ...document,
      title: 'הרצאה בשם חדש',
      _updatedAt: '2030-01-02T00:00:00Z',
    }))
    await expect
      .poll(
        async () =>
          (await (await fetch(`${server.baseUrl}/api/v1/meetups/${slug}.json`)).text()).includes('הרצאה בשם חדש'),
        {timeout: 5_000},
      )
      .toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(received.length).toBe(before)
  })
})
