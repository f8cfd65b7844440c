// Integration: `npm start`'s own process with PODPING_URL pointing at a local stand-in of
// podping.cloud's HTTP interface and PODPING_TOKEN set. An episode edit that changes the feed is
// announced with one GET (the feed's URL, reason and medium in the query, the token as the whole
// Authorization header); a stand-in answering 500 is retried, `/status` and `/metrics` show the
// failure meanwhile, and the retry that Podping takes clears it.
import {copyFile, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const TOKEN = 'Blahblah^^12345678'
const FEED_URL = 'http://api.test/feed.xml'

interface PodpingRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
}

let folder: string
let standIn: Server
let received: PodpingRequest[]
/** How the stand-in answers the next requests, in order; 200 when none is left. */
let script: (number | 'held')[] = []
let release: () => void = () => undefined
let server: MainProcess

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-podping-'))
  await copyFile(SAMPLE_DATASET, join(folder, 'catalog.ndjson'))
  received = []
  standIn = createServer((request, response) => {
    received.push({method: request.method ?? '', path: request.url ?? '', headers: request.headers})
    const answer = script.shift() ?? 200
    if (answer === 'held')
      release = () => {
        release = () => undefined
        response.writeHead(200).end('Success!')
      }
    else response.writeHead(answer).end(answer === 200 ? 'Success!' : 'Internal Server Error')
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const address = standIn.address()
  if (address === null || typeof address === 'string') throw new Error('the Podping stand-in has no port')
  server = await startMainProcess({
    PORT: '0',
    PUBLIC_BASE_URL: 'http://api.test',
    DATASET_FILE: join(folder, 'catalog.ndjson'),
    RECONCILE_INTERVAL_SECONDS: '0',
    PODPING_URL: `http://127.0.0.1:${address.port}/`,
    PODPING_TOKEN: TOKEN,
  })
})
afterAll(async () => {
  release()
  await server?.stop()
  standIn?.closeAllConnections()
  standIn?.close()
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

async function episodesInFeed(): Promise<SanityDocument[]> {
  const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  return documents.filter(
    (document) => document._type === 'episode' && document['audioUrl'] && !document._id.startsWith('drafts.'),
  )
}

const podpingStatus = z.object({
  last_announced_at: z.string().nullable(),
  consecutive_failures: z.number(),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
})
const status = async () =>
  z.object({podping: podpingStatus}).parse(await (await fetch(`${server.baseUrl}/status`)).json()).podping

async function announcements(outcome: string): Promise<number> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
  const line = text
    .split('\n')
    .find((row) => row.startsWith(`catalog_podping_announcements_total{outcome="${outcome}"}`))
  return Number(line?.split(' ')[1] ?? Number.NaN)
}

const expectedPath = `/?${new URLSearchParams({url: FEED_URL, reason: 'update', medium: 'podcast'}).toString()}`

describe('Podping', () => {
  it('announces nothing for the snapshot the server started with', async () => {
    expect(await status()).toEqual({
      last_announced_at: null,
      consecutive_failures: 0,
      last_error: null,
      last_error_at: null,
    })
    expect(received).toEqual([])
  })

  it('announces an episode edit that changes the feed with exactly one GET carrying the feed, the reason and the token', async () => {
    const [episode] = await episodesInFeed()
    await editDocument(episode?._id ?? '', (document) => ({
      ...document,
      title: 'כותרת חדשה לפודפינג',
      _updatedAt: '2030-01-01T00:00:00Z',
    }))
    await expect.poll(() => received.length, {interval: 50, timeout: 20_000}).toBe(1)
    expect(await (await fetch(`${server.baseUrl}/feed.xml`)).text()).toContain('כותרת חדשה לפודפינג')
    // Longer than the 1 s a burst is gathered in and the first retry's delay: a second GET would be here.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    expect(received).toHaveLength(1)
    const [request] = received
    expect(request?.method).toBe('GET')
    expect(request?.path).toBe(expectedPath)
    expect(request?.headers['authorization']).toBe(TOKEN)
    expect(request?.headers['user-agent']).toMatch(/^podcast-catalog-api\/\d+\.\d+\.\d+/)
    expect(await status()).toMatchObject({consecutive_failures: 0, last_announced_at: expect.any(String)})
    expect(await announcements('announced')).toBe(1)
  })

  it('retries a Podping that answers 500, showing the failure in /status and /metrics until the retry is taken', async () => {
    const before = received.length
    const announcedBefore = (await status()).last_announced_at
    script = [500, 'held']
    const [, episode] = await episodesInFeed()
    await editDocument(episode?._id ?? '', (document) => ({
      ...document,
      title: 'פרק שפודפינג נכשל בו',
      _updatedAt: '2030-01-02T00:00:00Z',
    }))
    // The retry is held unanswered, so the failure stays in view however slow the machine.
    await expect.poll(() => received.length - before, {interval: 50, timeout: 20_000}).toBe(2)
    expect(await (await fetch(`${server.baseUrl}/feed.xml`)).text()).toContain('פרק שפודפינג נכשל בו')
    expect(await status()).toMatchObject({
      consecutive_failures: 1,
      last_error: expect.stringContaining('answered 500'),
      last_announced_at: announcedBefore,
    })
    expect(await announcements('retried')).toBe(1)
    release()
    await expect.poll(async () => (await status()).consecutive_failures, {interval: 50}).toBe(0)
    expect((await status()).last_announced_at).not.toBe(announcedBefore)
    expect(await announcements('announced')).toBe(2)
    expect(received.slice(before).map((request) => request.path)).toEqual([expectedPath, expectedPath])
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"component":"podping"') && line.includes('"level":40'))
    expect(warnings).toHaveLength(1)
    expect(server.output()).not.toContain(TOKEN)
  })
})
