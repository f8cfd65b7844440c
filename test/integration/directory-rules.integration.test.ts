// Integration: what podcast directories refuse never takes the feed down. Real HTTP on loopback,
// over an in-memory copy of the sample dataset that each test edits and rebuilds from: invalid
// settings keep the last good channel (or answer 503 with the reason on a first start), a bad
// enclosure URL is a document problem, a bad transcript link is left out alone, and /status and
// /metrics say what is held back.
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseFeed} from 'podcast-partytime'
import {afterEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {readProblem} from '../helpers/contract.ts'
import {startMainProcess} from '../helpers/main-process.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const statusSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  problems: z.array(
    z.object({document_id: z.string(), collection: z.string(), severity: z.string(), messages: z.array(z.string())}),
  ),
})

/** Starts a server over the sample dataset as `edit` leaves it; `documents` can be edited again before a rebuild. */
async function serve(edit: (document: SanityDocument) => SanityDocument = (document) => document) {
  let documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET).map(edit)
  const started = await startTestServer({
    observed: true,
    source: createEmbeddedSource('edited sample', async () => documents),
  })
  server = started
  return {
    server: started,
    get: (path: string) => fetch(`${started.baseUrl}${path}`),
    status: async () => statusSchema.parse(await (await fetch(`${started.baseUrl}/status`)).json()),
    metrics: async () => (await fetch(`${started.baseUrl}/metrics`)).text(),
    /** Edits the dataset and re-reads all of it, as the reconcile timer or a settings webhook does. */
    async rebuild(next: (document: SanityDocument) => SanityDocument) {
      documents = documents.map(next)
      await started.store.refresh()
    },
  }
}

const publishedWithAudio = (documents: SanityDocument[]) =>
  documents.filter(
    (document) =>
      document._type === 'episode' && !document._id.startsWith('drafts.') && typeof document['audioUrl'] === 'string',
  )
const firstEpisodeWithAudio = (documents: SanityDocument[]) => publishedWithAudio(documents)[0]
const withFields = (id: string, fields: Record<string, unknown>) => (document: SanityDocument) =>
  document._id === id ? {...document, ...fields} : document
const SETTINGS = 'podcastSettings'
const NOT_AN_APPLE_CATEGORY = withFields(SETTINGS, {categories: ['Tech News']})
const problemsMetric = (metrics: string, collection: string, severity: string) => {
  const line = metrics
    .split('\n')
    .find((candidate) =>
      candidate.startsWith(`catalog_document_problems{collection="${collection}",severity="${severity}"} `),
    )
  return line === undefined ? undefined : Number(line.split(' ').at(-1))
}

describe('invalid podcast settings', () => {
  it('after a good version keep the last good feed, byte for byte, and say so in /status and /metrics', async () => {
    const served = await serve()
    const before = await rawRequest(`${served.server.baseUrl}/feed.xml`)
    expect(before.status).toBe(200)
    expect(await served.status()).toMatchObject({status: 'ok', problems: []})

    await served.rebuild(NOT_AN_APPLE_CATEGORY)
    const after = await rawRequest(`${served.server.baseUrl}/feed.xml`)
    expect(after.status).toBe(200)
    expect(after.headers.etag).toBe(before.headers.etag)
    expect(after.body.equals(before.body)).toBe(true)
    const status = await served.status()
    expect(status.status).toBe('degraded')
    expect(status.problems).toEqual([
      {
        document_id: SETTINGS,
        collection: 'settings',
        severity: 'kept',
        messages: ["categories.0: is not in Apple Podcasts' category list"],
      },
    ])
    expect(problemsMetric(await served.metrics(), 'settings', 'kept')).toBe(1)

    // Fixed: the new channel is served and nothing is held back.
    await served.rebuild(withFields(SETTINGS, {categories: ['News|Tech News']}))
    expect(await (await served.get('/feed.xml')).text()).toMatch(
      /<itunes:category text="News">\s*<itunes:category text="Tech News"\/>/,
    )
    expect(await served.status()).toMatchObject({status: 'ok', problems: []})
    expect(problemsMetric(await served.metrics(), 'settings', 'kept')).toBe(0)
  })

  it('on a first start, with no good version, answer /feed.xml with 503 and the reason, never 404', async () => {
    const served = await serve(NOT_AN_APPLE_CATEGORY)
    const problem = await readProblem(await served.get('/feed.xml'), 503)
    expect(problem.detail).toContain("categories.0: is not in Apple Podcasts' category list")
    expect(await served.status()).toMatchObject({
      status: 'degraded',
      problems: [{document_id: SETTINGS, collection: 'settings', severity: 'rejected'}],
    })
    expect(problemsMetric(await served.metrics(), 'settings', 'rejected')).toBe(1)
    // The API does not depend on the settings.
    expect((await served.get('/api/v1/episodes.json')).status).toBe(200)
  })
})

describe('invalid podcast settings, as `npm start` runs', () => {
  it('are logged once, however many builds follow', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'settings-log-'))
    const datasetFile = join(folder, 'catalog.ndjson')
    const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
    const write = (edit: (document: SanityDocument) => SanityDocument) =>
      writeFile(datasetFile, `${documents.map((document) => JSON.stringify(edit(document))).join('\n')}\n`)
    await write((document) => document)
    const main = await startMainProcess({PORT: '0', DATASET_FILE: datasetFile, RECONCILE_INTERVAL_SECONDS: '0'})
    try {
      const status = async () => statusSchema.parse(await (await fetch(`${main.baseUrl}/status`)).json())
      await write(NOT_AN_APPLE_CATEGORY)
      await expect
        .poll(async () => (await status()).problems.map((problem) => problem.severity), {timeout: 20_000, interval: 50})
        .toEqual(['kept'])
      // Another edit, another build: the settings are still refused, and not logged again.
      const episode = firstEpisodeWithAudio(documents)
      await write((document) =>
        NOT_AN_APPLE_CATEGORY(document._id === episode?._id ? {...document, title: 'כותרת אחרת'} : document),
      )
      await expect
        .poll(async () => (await (await fetch(`${main.baseUrl}/feed.xml`)).text()).includes('כותרת אחרת'), {
          timeout: 20_000,
          interval: 50,
        })
        .toBe(true)
      const logged = main
        .output()
        .split('\n')
        .filter((line) => line.includes('settings document podcastSettings'))
      expect(logged).toHaveLength(1)
      expect(logged[0]).toContain(
        "kept: settings document podcastSettings: categories.0: is not in Apple Podcasts' category list",
      )
    } finally {
      await main.stop()
      await rm(folder, {recursive: true, force: true})
    }
  }, 60_000)
})

describe('URLs a podcast app fetches', () => {
  it('refuse an http:// or spaced enclosure as a document problem, leave out such a transcript link alone, and the feed stays', async () => {
    const dataset = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
    const episodes = publishedWithAudio(dataset)
    // An episode that holds no transcript of its own, so its link is what the feed would name.
    const [plain, spaced, transcript] = episodes.filter((episode) => episode['transcript'] === undefined)
    if (!plain || !spaced || !transcript) throw new Error('the sample has too few episodes with audio')
    const link = 'http://files.example/transcript.vtt'
    const served = await serve((document) => {
      if (document._id === plain._id)
        return {...document, audioUrl: String(document['audioUrl']).replace('https://', 'http://')}
      if (document._id === spaced._id)
        return {...document, audioUrl: String(document['audioUrl']).replace(/\.mp3$/, ' final.mp3')}
      if (document._id === transcript._id) return {...document, transcriptFile: undefined, transcriptUrl: link}
      return document
    })
    const response = await served.get('/feed.xml')
    expect(response.status).toBe(200)
    const xml = await response.text()
    const items = parseFeed(xml)?.items ?? []
    const guids = items.map((item) => item.guid)
    expect(guids.length).toBe(episodes.length - 2)
    for (const refused of [plain, spaced]) expect(guids).not.toContain(refused._id)
    // The episode whose link podcast apps could not fetch is served without it.
    expect(items.find((item) => item.guid === transcript._id)?.podcastTranscripts).toBeUndefined()
    // The enclosures and transcript links; the chapters and transcript documents this origin serves
    // are under PUBLIC_BASE_URL (http://api.test here, https in production).
    expect(xml).not.toMatch(/<(?:enclosure|podcast:transcript)\b[^>]*url="(?:http:\/\/(?!api\.test\/)|[^"]* )/)

    const problems = (await served.status()).problems
    expect(problems.map((problem) => [problem.document_id, problem.severity]).sort()).toEqual(
      [
        [plain._id, 'rejected'],
        [spaced._id, 'rejected'],
        [transcript._id, 'warning'],
      ].sort(),
    )
    expect(problems.find((problem) => problem.document_id === spaced._id)?.messages.join(' ')).toMatch(
      /printable ASCII/,
    )
    expect(problems.find((problem) => problem.document_id === transcript._id)?.messages).toEqual([
      `transcript: left out "${link}", not an https URL in printable ASCII that podcast apps can fetch`,
    ])
    expect(problemsMetric(await served.metrics(), 'episodes', 'rejected')).toBe(2)
  })
})

describe('persons in an item', () => {
  it('name a host who is also a guest once, as host', async () => {
    const dataset = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
    const host =
      z
        .object({hosts: z.array(z.object({_ref: z.string()})).min(1)})
        .parse(dataset.find((document) => document._id === SETTINGS)).hosts[0]?._ref ?? ''
    const episode = firstEpisodeWithAudio(dataset)
    if (!episode) throw new Error('the sample has no episode with audio')
    const served = await serve(
      withFields(episode._id, {guests: [{_type: 'reference', _ref: host, _key: 'host-as-guest'}]}),
    )
    const item = parseFeed(await (await served.get('/feed.xml')).text())?.items.find(
      (candidate) => candidate.guid === episode._id,
    )
    const people = item?.podcastPeople?.map((person) => [person.name, person.role.toLowerCase()]) ?? []
    expect(people).toEqual([
      ['נועה לוי', 'host'],
      ['דן שפירא', 'host'],
    ])
  })
})

describe('artwork', () => {
  const artworkOf = (ref: string) =>
    withFields(SETTINGS, {artwork: {_type: 'image', asset: {_type: 'reference', _ref: ref}}})

  it('from a WebP upload ends in .jpg and is served as JPEG; a PNG stays .png', async () => {
    const webp = await serve(artworkOf('image-5c0d3a1e9f7b2c4d6e8f0a1b3c5d7e9f1a2b3c4d-2000x2000-webp'))
    const fromWebp = new URL(parseFeed(await (await webp.get('/feed.xml')).text())?.itunesImage ?? '')
    expect(fromWebp.pathname).toMatch(/\.jpg$/)
    expect(fromWebp.searchParams.get('fm')).toBe('jpg')

    await webp.rebuild(artworkOf('image-5c0d3a1e9f7b2c4d6e8f0a1b3c5d7e9f1a2b3c4d-2000x2000-png'))
    const fromPng = new URL(parseFeed(await (await webp.get('/feed.xml')).text())?.itunesImage ?? '')
    expect(fromPng.pathname).toMatch(/\.png$/)
    expect(fromPng.searchParams.get('fm')).toBe('png')
  })
})
