// Integration: episodes' chapters over real HTTP, from the same snapshot as the API and the feed,
// over an in-memory copy of the sample dataset that tests edit as an editor would and announce
// with a delivery signed by @sanity/webhook. The chapters documents are checked against a JSON
// Schema written from the Podcasting 2.0 JSON chapters format, and the feed is read by podcast-partytime.
import {gunzipSync} from 'node:zlib'
import {Ajv2020} from 'ajv/dist/2020.js'
import {parseFeed} from 'podcast-partytime'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {eventually} from '../../support/eventually.ts'
import {readContract} from '../helpers/contract.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {editableSample} from '../helpers/editable-sample.ts'

// podcast-namespace docs/examples/chapters/jsonChapters.md, version 1.2: `version` and `chapters`
// required; a chapter needs `startTime` (seconds, a float); `title`, `img`, `url` are strings.
const JSON_CHAPTERS_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['version', 'chapters'],
  properties: {
    version: {type: 'string', pattern: '^1\\.2(\\.\\d+)?$'},
    author: {type: 'string'},
    title: {type: 'string'},
    podcastName: {type: 'string'},
    description: {type: 'string'},
    fileName: {type: 'string'},
    waypoints: {type: 'boolean'},
    chapters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['startTime'],
        properties: {
          startTime: {type: 'number', minimum: 0},
          endTime: {type: 'number', minimum: 0},
          title: {type: 'string', minLength: 1},
          img: {type: 'string', pattern: '^https?://'},
          url: {type: 'string', pattern: '^https?://'},
          toc: {type: 'boolean'},
        },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
}
const validateChapters = new Ajv2020({allErrors: true}).compile(JSON_CHAPTERS_SCHEMA)
const chaptersFileSchema = z.object({chapters: z.array(z.object({startTime: z.number(), title: z.string()}))})

const sample = editableSample()

const CHAPTERED = 'ep-31-webhooks-done-right'
const documentOf = (slug: string) => sample.episode(slug)
const publish = (slug: string, fields: Record<string, unknown>) => sample.publish(slug, fields)
const local = (url: string) => url.replace('http://api.test', sample.server.baseUrl)
const chaptersPathOf = (slug: string) => `/api/v1/episodes/${slug}/chapters.json`
const episodeOf = async (slug: string) =>
  (
    await readContract(
      await fetch(`${sample.server.baseUrl}/api/v1/episodes/${slug}.json`),
      itemEnvelope(episodeSchema),
    )
  ).data

describe('an episode chapters document', () => {
  it('is JSON chapters 1.2.0 as application/json+chapters, with ETag, 304, HEAD and gzip', async () => {
    const response = await rawRequest(`${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`)
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe('application/json+chapters')
    const document: unknown = JSON.parse(response.body.toString('utf8'))
    expect(validateChapters(document), JSON.stringify(validateChapters.errors)).toBe(true)
    const episode = await episodeOf(CHAPTERED)
    expect(chaptersFileSchema.parse(document).chapters).toEqual(
      episode.chapters?.map((chapter) =>
        expect.objectContaining({startTime: chapter.start_seconds, title: chapter.title}),
      ),
    )
    expect(episode.chapters_url && local(episode.chapters_url)).toBe(
      `${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`,
    )

    const etag = String(response.headers.etag)
    expect(etag).toMatch(/^"[\w-]+"$/)
    const conditional = await rawRequest(`${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`, {
      headers: {'if-none-match': etag},
    })
    expect(conditional.status).toBe(304)
    expect(conditional.body.length).toBe(0)
    const head = await rawRequest(`${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`, {method: 'HEAD'})
    expect(head.status).toBe(200)
    expect(head.headers.etag).toBe(etag)
    expect(head.body.length).toBe(0)
    await eventually(async () => {
      const gzip = await rawRequest(`${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`, {
        headers: {'accept-encoding': 'gzip'},
      })
      expect(gzip.headers['content-encoding']).toBe('gzip')
      expect(gunzipSync(gzip.body).equals(response.body)).toBe(true)
    })
    // The sandbox serves the same bytes; an episode without chapters has none to serve.
    const sandbox = await rawRequest(`${sample.server.baseUrl}/api/v1/sandbox/episodes/${CHAPTERED}/chapters.json`)
    expect(sandbox.body.equals(response.body)).toBe(true)
    const none = await fetch(`${sample.server.baseUrl}${chaptersPathOf('ep-8-on-call')}`)
    expect(none.status).toBe(404)
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('is linked from the feed item with podcast:chapters, and that URL is served', async () => {
    const feed = parseFeed(await (await fetch(`${sample.server.baseUrl}/feed.xml`)).text())
    const linked = (feed?.items ?? []).flatMap((item) => (item.podcastChapters ? [item.podcastChapters] : []))
    expect(linked.length).toBeGreaterThanOrEqual(5)
    for (const chapters of linked) {
      expect(chapters.type).toBe('application/json+chapters')
      const response = await fetch(local(chapters.url))
      expect(response.status, chapters.url).toBe(200)
      expect(response.headers.get('content-type')).toBe('application/json+chapters')
      expect(validateChapters(await response.json())).toBe(true)
    }
  })

  it('follows an edit of the chapters announced by a signed webhook', async () => {
    const before = await fetch(`${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`)
    const etag = String(before.headers.get('etag'))
    const chapters = [
      {_key: 'a', _type: 'chapter', start: '0:00', title: 'פתיחה חדשה'},
      {_key: 'b', _type: 'chapter', start: '20:00', title: 'מקטע שנוסף'},
    ]
    await publish(CHAPTERED, {chapters})
    await eventually(async () => {
      const after = await fetch(`${sample.server.baseUrl}${chaptersPathOf(CHAPTERED)}`, {
        headers: {'if-none-match': etag},
      })
      expect(after.status).toBe(200)
      expect(chaptersFileSchema.parse(await after.json()).chapters).toEqual([
        {startTime: 0, title: 'פתיחה חדשה'},
        {startTime: 1200, title: 'מקטע שנוסף'},
      ])
    }, 10_000)
  })

  it('leaves out chapters out of order as a document problem, still serving the episode and the feed', async () => {
    // One in the feed: ep-31 has no audio, so no item.
    const IN_FEED = 'ep-22-cache-invalidation'
    const id = documentOf(IN_FEED)._id
    expect((await fetch(`${sample.server.baseUrl}${chaptersPathOf(IN_FEED)}`)).status).toBe(200)
    await publish(IN_FEED, {
      chapters: [
        {_key: 'a', _type: 'chapter', start: '0:00', title: 'פתיחה'},
        {_key: 'b', _type: 'chapter', start: '20:00', title: 'ב'},
        {_key: 'c', _type: 'chapter', start: '10:00', title: 'ג'},
      ],
    })
    await eventually(async () => {
      expect((await fetch(`${sample.server.baseUrl}${chaptersPathOf(IN_FEED)}`)).status).toBe(404)
    }, 10_000)
    const episode = await episodeOf(IN_FEED)
    expect(episode.chapters).toBeNull()
    expect(episode.chapters_url).toBeNull()
    const statusResponse = await fetch(`${sample.server.baseUrl}/status`)
    // Read as of now, never from a cache.
    expect(statusResponse.headers.get('cache-control')).toBe('no-store')
    const status = z
      .object({
        problems: z.array(z.object({document_id: z.string(), severity: z.string(), messages: z.array(z.string())})),
      })
      .parse(await statusResponse.json())
    expect(status.problems.find((problem) => problem.document_id === id)).toEqual({
      document_id: id,
      severity: 'warning',
      messages: ['chapters: left out: chapter 3 starts at 10:00, not after the one before it (20:00)'],
    })
    const feedResponse = await fetch(`${sample.server.baseUrl}/feed.xml`)
    expect(feedResponse.status).toBe(200)
    const item = parseFeed(await feedResponse.text())?.items.find((entry) => entry.guid === id)
    expect(item).toBeDefined()
    expect(item?.podcastChapters).toBeUndefined()
  })
})
