// Integration: the podcast feed over real HTTP, from the same snapshot as the API. The served bytes
// are read by two independent parsers (podcast-partytime, which Podcast Index runs, and
// @rowanmanning/feed-parser) and checked against Apple Podcasts' rules and the API's own records.
import {readFile} from 'node:fs/promises'
import {brotliDecompressSync, gunzipSync} from 'node:zlib'
import {parseFeed as parseWithFeedParser} from '@rowanmanning/feed-parser'
import {parseFeed as parseWithPartytime} from 'podcast-partytime'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {bulkSchema, type Episode} from '../../catalog/v1/contract.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {APPLE_CATEGORIES} from '../../catalog/v1/apple-categories.ts'
import {VIDEO_LINK_TEXT} from '../../catalog/feed/feed-item.ts'
import {podcastGuidOf} from '../../catalog/feed/podcast-guid.ts'
import {readContract} from '../helpers/contract.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
let documents: SanityDocument[]

beforeAll(async () => {
  documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  server = await startTestServer({source: createEmbeddedSource('in-memory sample', async () => documents)})
})
afterAll(() => server.close())

const getFeed = () => fetch(`${server.baseUrl}/feed.xml`)
const feedText = async () => {
  const response = await getFeed()
  expect(response.status).toBe(200)
  return response.text()
}
const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8')
const episodesWithAudio = async (): Promise<Episode[]> => {
  const bulk = await readContract(await fetch(`${server.baseUrl}/api/v1/all.json`), bulkSchema)
  return bulk.data.episodes.filter((episode) => episode.audio !== null)
}
const publishedEpisodeDocuments = () =>
  documents.filter((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
const settingsDocument = () => documents.find((document) => document._id === 'podcastSettings')

describe('GET /feed.xml', () => {
  it('is an RSS feed with validators, 304s, HEAD and br/gzip variants of the same bytes', async () => {
    // Raw requests: fetch() asks for compression by itself and decodes what it gets.
    const response = await rawRequest(`${server.baseUrl}/feed.xml`)
    expect(response.status).toBe(200)
    expect(response.headers['content-type']).toBe('application/rss+xml; charset=utf-8')
    expect(response.headers['content-encoding']).toBeUndefined()
    const etag = String(response.headers.etag)
    const lastModified = String(response.headers['last-modified'])
    expect(etag).toMatch(/^"[\w-]+"$/)
    expect(new Date(lastModified).getTime()).toBeGreaterThan(0)
    const identity = response.body

    expect((await rawRequest(`${server.baseUrl}/feed.xml`, {headers: {'if-none-match': etag}})).status).toBe(304)
    expect(
      (await rawRequest(`${server.baseUrl}/feed.xml`, {headers: {'if-modified-since': lastModified}})).status,
    ).toBe(304)

    const head = await rawRequest(`${server.baseUrl}/feed.xml`, {method: 'HEAD'})
    expect(head.status).toBe(200)
    expect(head.headers.etag).toBe(etag)
    expect(head.headers['content-length']).toBe(String(identity.length))
    expect(head.body.length).toBe(0)

    for (const [coding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const encoded = await rawRequest(`${server.baseUrl}/feed.xml`, {headers: {'accept-encoding': coding}})
      expect(encoded.headers['content-encoding']).toBe(coding)
      expect(encoded.headers.etag).toBe(`${etag.slice(0, -1)}-${coding}"`)
      expect(decode(encoded.body).equals(identity)).toBe(true)
    }
  })

  it('is read by podcast-partytime and by @rowanmanning/feed-parser, with one item per published episode that has audio, newest first', async () => {
    const xml = await feedText()
    const episodes = await episodesWithAudio()
    expect(episodes.length).toBe(
      publishedEpisodeDocuments().filter((document) => document['audioUrl'] || document['audioFile']).length,
    )
    expect(episodes.length).toBeGreaterThan(30)

    const partytime = parseWithPartytime(xml)
    expect(partytime).not.toBeNull()
    expect(partytime?.language).toBe('he')
    expect(partytime?.items.map((item) => item.link)).toEqual(episodes.map((episode) => episode.url))
    for (const [index, episode] of episodes.entries()) {
      const item = partytime?.items[index]
      expect(item?.title).toBe(episode.title)
      expect(item?.enclosure).toEqual({
        url: episode.audio?.url,
        length: episode.audio?.length_bytes,
        type: episode.audio?.mime_type,
      })
      expect(item?.duration).toBe(episode.duration_seconds)
      expect(item?.explicit).toBe(false)
      expect(item?.itunesEpisode).toBe(episode.episode_number ?? undefined)
      expect(item?.pubDate?.toISOString()).toBe(episode.published_at)
    }

    const feedParser = parseWithFeedParser(xml)
    expect(feedParser.language).toBe('he')
    expect(feedParser.self).toBe('http://api.test/feed.xml')
    expect(feedParser.items.map((item) => item.url)).toEqual(episodes.map((episode) => episode.url))
    expect(
      feedParser.items.map((item) => item.mediaAudio.map((media) => [media.url, media.length, media.mimeType])),
    ).toEqual(episodes.map((episode) => [[episode.audio?.url, episode.audio?.length_bytes, episode.audio?.mime_type]]))
  })

  it("meets Apple Podcasts' channel rules and the Podcasting 2.0 namespace", async () => {
    const xml = await feedText()
    const feed = parseWithPartytime(xml)
    const settings = settingsDocument()
    expect(feed?.title).toBe(settings?.['title'])
    expect(utf8Bytes(feed?.description ?? '')).toBeLessThanOrEqual(4000)
    expect(feed?.author).toBe(settings?.['author'])
    expect(feed?.owner).toEqual({name: 'צוות קוד טוקס', email: 'podcast@codetalks.example'})
    expect(feed?.itunesType).toBe('episodic')
    expect(feed?.copyright).toBe(settings?.['copyright'])
    expect(feed?.locked).toBe(true)
    expect(feed?.podcastOwner).toBe('podcast@codetalks.example')
    expect(feed?.guid).toBe(settings?.['guid'])
    expect(feed?.guid).toBe(podcastGuidOf('https://codetalks.example/feed.xml'))
    expect(feed?.podcastPeople?.map((person) => [person.name, person.role.toLowerCase()])).toEqual([
      ['נועה לוי', 'host'],
      ['דן שפירא', 'host'],
    ])
    expect(feed?.podcastFunding?.[0]?.url).toBe('https://codetalks.example/support')
    // Apple wants true/false (feedsmith's own writer says yes/no).
    expect(
      xml
        .match(/<itunes:explicit>[^<]*<\/itunes:explicit>/g)
        ?.every((element) => /<itunes:explicit>(true|false)<\/itunes:explicit>/.test(element)),
    ).toBe(true)
    for (const [, text, inner] of xml.matchAll(
      /<itunes:category text="([^"]+)"(?:\/>|>\s*<itunes:category text="([^"]+)"\/>)/g,
    )) {
      expect(Object.keys(APPLE_CATEGORIES)).toContain(decodeXml(text ?? ''))
      if (inner) expect(APPLE_CATEGORIES[decodeXml(text ?? '')]).toContain(decodeXml(inner))
    }
    // Artwork: JPEG from the image CDN, square, 1400-3000 px; never WebP.
    for (const [, href] of xml.matchAll(/<itunes:image href="([^"]+)"\/>/g)) {
      const url = new URL(decodeXml(href ?? ''))
      expect(url.searchParams.get('fm')).toBe('jpg')
      expect(url.searchParams.get('w')).toBe(url.searchParams.get('h'))
      expect(Number(url.searchParams.get('w'))).toBeGreaterThanOrEqual(1400)
      expect(Number(url.searchParams.get('w'))).toBeLessThanOrEqual(3000)
    }
    // Nothing from the clock: the newest date among the documents the feed shows.
    expect(feed?.lastBuildDate?.getTime()).toBe(newestContentDate())
  })

  it('writes items as Apple wants them: stable guids, RFC 2822 dates, short right-to-left HTML descriptions, persons and transcripts', async () => {
    const xml = await feedText()
    const feed = parseWithPartytime(xml)
    const episodes = await episodesWithAudio()
    const ids = publishedEpisodeDocuments().map((document) => document._id)
    // A host who is also a guest stands once, as host.
    const hostPages = new Set(feed?.podcastPeople?.map((person) => person.href))
    for (const [index, item] of (feed?.items ?? []).entries()) {
      const episode = episodes[index]
      expect(ids).toContain(item.guid)
      const guests = episode?.guests.filter((guest) => !hostPages.has(guest.url)) ?? []
      expect(item.podcastPeople?.map((person) => person.role.toLowerCase())).toEqual([
        'host',
        'host',
        ...guests.map(() => 'guest'),
      ])
      if (episode?.transcript)
        expect(item.podcastTranscripts?.[0]).toMatchObject({url: episode.transcript.url, type: 'text/vtt'})
      else expect(item.podcastTranscripts ?? []).toEqual([])
    }
    expect(xml.match(/<guid isPermaLink="false">/g)?.length).toBe(episodes.length)
    for (const [, date] of xml.matchAll(/<pubDate>([^<]+)<\/pubDate>/g))
      expect(date).toMatch(
        /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/,
      )
    const descriptions = [
      ...xml.matchAll(/<item>[\s\S]*?<description>\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*<\/description>/g),
    ].map((match) => match[1] ?? '')
    expect(descriptions.length).toBe(episodes.length)
    for (const html of descriptions) {
      expect(utf8Bytes(html)).toBeLessThanOrEqual(4000)
      expect(
        [...html.matchAll(/<\/?([a-z]+)/g)]
          .map((tag) => tag[1])
          .every((tag) => ['p', 'ul', 'li', 'a'].includes(tag ?? '')),
      ).toBe(true)
      expect(html).toMatch(/^<p dir="rtl">\u200f/)
    }
  })

  it('links every episode that has a video to it with podcast:contentLink, which the namespace allows in an item', async () => {
    const xml = await feedText()
    const items = xml
      .split('<item>')
      .slice(1)
      .map((block) => block.slice(0, block.indexOf('</item>')))
    const episodes = await episodesWithAudio()
    expect(items.length).toBe(episodes.length)
    for (const [index, block] of items.entries()) {
      const links = [...block.matchAll(/<podcast:contentLink href="([^"]*)">([^<]*)<\/podcast:contentLink>/g)].map(
        ([, href = '', text]) => ({href: href.replaceAll('&amp;', '&'), text}),
      )
      const video = episodes[index]?.video_url
      expect(links).toEqual(video ? [{href: video, text: VIDEO_LINK_TEXT}] : [])
    }
    expect(episodes.filter((episode) => episode.video_url !== null).length).toBeGreaterThan(0)
  })

  it('serves the same bytes for the same content, whenever it is built', async () => {
    const later = await startTestServer({
      source: createEmbeddedSource('in-memory sample', async () => documents),
      clock: () => new Date('2031-01-01T00:00:00Z'),
    })
    try {
      const [mine, theirs] = await Promise.all([getFeed(), fetch(`${later.baseUrl}/feed.xml`)])
      expect(theirs.headers.get('etag')).toBe(mine.headers.get('etag'))
      expect(Buffer.from(await theirs.arrayBuffer()).equals(Buffer.from(await mine.arrayBuffer()))).toBe(true)
    } finally {
      await later.close()
    }
  })

  it('keeps its ETag and Last-Modified through a rebuild that does not change it (a meetup edit)', async () => {
    const before = await rawRequest(`${server.baseUrl}/feed.xml`)
    const meetup = documents.find((document) => document._type === 'meetup' && !document._id.startsWith('drafts.'))
    if (!meetup) throw new Error('the sample has no meetup')
    Object.assign(meetup, {title: 'הרצאה בשם אחר', _updatedAt: '2030-06-01T10:00:00Z'})
    await server.store.refresh([{documentId: meetup._id, collection: 'meetups'}])
    const after = await rawRequest(`${server.baseUrl}/feed.xml`)
    expect(after.headers.etag).toBe(before.headers.etag)
    expect(after.headers['last-modified']).toBe(before.headers['last-modified'])
  })

  it("keeps an episode's guid when its slug, title and date are edited, and shows the edit", async () => {
    const target = publishedEpisodeDocuments().find((document) => document['audioUrl'])
    if (!target) throw new Error('the sample has no episode with audio')
    const before = parseWithPartytime(await feedText())?.items.find((item) => item.guid === target._id)
    expect(before).toBeDefined()
    Object.assign(target, {
      slug: {_type: 'slug', current: 'ep-99-renamed'},
      title: 'כותרת חדשה לגמרי',
      publishedAt: '2026-10-01',
      _updatedAt: '2026-10-01T10:00:00Z',
    })
    await server.store.refresh([{documentId: target._id, collection: 'episodes'}])
    const after = parseWithPartytime(await feedText())
    const edited = after?.items.find((item) => item.guid === target._id)
    expect(edited?.title).toBe('כותרת חדשה לגמרי')
    expect(edited?.link).toBe('https://codetalks.example/episodes/ep-99-renamed')
    expect(after?.items[0]?.guid).toBe(target._id) // newest first
    expect(after?.items.length).toBe(parseWithPartytime(await feedText())?.items.length)
  })
})

/** The newest `_updatedAt` among the settings, the episodes with audio, and the voices they name. */
describe('where people and agents find the feed', () => {
  it('is linked from the portal (alternate link and a visible one), llms.txt, the AI catalogs and the service index', async () => {
    const feedUrl = 'http://api.test/feed.xml'
    const portal = await (await fetch(`${server.baseUrl}/docs`)).text()
    expect(portal).toContain(
      `<link rel="alternate" type="application/rss+xml" title="Code Talks Catalog API: podcast feed" href="${feedUrl}">`,
    )
    expect(portal).toMatch(new RegExp(`<a href="${feedUrl}">[^<]+</a>`))
    const llms = await (await fetch(`${server.baseUrl}/llms.txt`)).text()
    const episodes = await episodesWithAudio()
    expect(llms).toContain(`- [Podcast RSS feed](${feedUrl}): the ${episodes.length} episodes with audio`)
    const aiCatalog = z
      .object({entries: z.array(z.object({type: z.string(), url: z.string()}).loose())})
      .parse(await (await fetch(`${server.baseUrl}/.well-known/ai-catalog.json`)).json())
    expect(aiCatalog.entries).toContainEqual(
      expect.objectContaining({type: 'rss-feed', url: feedUrl, items: episodes.length}),
    )
    const ard = z
      .object({resources: z.array(z.object({type: z.string(), href: z.string()}))})
      .parse(await (await fetch(`${server.baseUrl}/.well-known/ard.json`)).json())
    expect(ard.resources).toContainEqual({type: 'rss-feed', href: feedUrl})
    const index = z
      .object({data: z.object({feed_url: z.string()})})
      .parse(await (await fetch(`${server.baseUrl}/api/v1/index.json`)).json())
    expect(index.data.feed_url).toBe(feedUrl)
  })
})

function newestContentDate(): number {
  const byId = new Map(documents.map((document) => [document._id, document]))
  const referenced = (document: SanityDocument, field: string) =>
    (Array.isArray(document[field]) ? document[field] : []).flatMap((reference: unknown) => {
      const id =
        typeof reference === 'object' && reference !== null && '_ref' in reference ? String(reference._ref) : ''
      return byId.get(id) ?? []
    })
  const shown = [
    ...documents
      .filter((document) => document._id === 'podcastSettings')
      .flatMap((document) => [document, ...referenced(document, 'hosts')]),
    ...publishedEpisodeDocuments()
      .filter((document) => document['audioUrl'])
      .flatMap((document) => [document, ...referenced(document, 'guests')]),
  ]
  const released = publishedEpisodeDocuments()
    .filter((document) => document['audioUrl'])
    .map((document) => Date.parse(String(document['publishedAt'])))
  return Math.max(...shown.map((document) => Date.parse(String(document._updatedAt))), ...released)
}

function decodeXml(text: string): string {
  return text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>')
}
