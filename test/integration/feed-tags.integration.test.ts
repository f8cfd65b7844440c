// Integration: the channel tags an editor sets, itunes:title and unnumbered episodes, over real
// HTTP. Two servers on loopback ports: the sample dataset with no tags set and the same with
// every tag set and a trailer added, each feed read by podcast-partytime and by feedsmith.
import {readFile} from 'node:fs/promises'
import {parseRssFeed} from 'feedsmith'
import {parseFeed as parseWithPartytime} from 'podcast-partytime'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {podcastGuidOf} from '../../catalog/feed/podcast-guid.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const OTHER_SHOW_GUID = '917393e3-1b1e-5cef-ace4-edaa54e1f810'
const OTHER_SHOW_URL = 'https://feeds.example/other-show.xml'
const TRAILER_ID = 'trailer-0000-0000-0000-000000000000'

let plain: TestServer
let tagged: TestServer

function withTags(documents: SanityDocument[]): SanityDocument[] {
  const tags = {
    txts: [
      {_key: 'a', text: 'S6lpp-7ZCn8-dZfGc-OoyaG', purpose: 'applepodcastsverify'},
      {_key: 'b', text: 'bad', purpose: 'x'.repeat(200)},
    ],
    medium: 'podcast',
    updateFrequency: {text: 'כל שבועיים', rrule: 'FREQ=WEEKLY;INTERVAL=2', start: '2026-01-04'},
    podroll: [
      {_key: 'p', feedGuid: OTHER_SHOW_GUID, title: 'Podcasting 2.0'},
      {_key: 'q', feedUrl: OTHER_SHOW_URL},
      {_key: 'r', feedUrl: 'http://insecure.example/feed.xml'},
    ],
    newFeedUrl: 'https://feeds.codetalks.example/feed.xml',
    block: true,
    complete: true,
  }
  const episode = documents.find((document) => document._type === 'episode' && 'audioUrl' in document)
  const trailer = {
    ...episode,
    _id: TRAILER_ID,
    title: 'טריילר: מה שומעים כאן',
    slug: {_type: 'slug', current: 'ep-0-trailer'},
    episodeType: 'trailer',
    transcriptUrl: 'https://media.codetalks.example/trailer.vtt',
  }
  return [
    ...documents.map((document) => (document._id === 'podcastSettings' ? {...document, ...tags} : document)),
    trailer as SanityDocument,
  ]
}

/** The sample's settings without the channel tags it sets (to show them in the embedded feed). */
function withoutTags(documents: SanityDocument[]): SanityDocument[] {
  return documents.map((document) => {
    if (document._id !== 'podcastSettings') return document
    const {txts, medium, updateFrequency, podroll, newFeedUrl, block, complete, ...untagged} = document
    return untagged
  })
}

beforeAll(async () => {
  const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  ;[plain, tagged] = await Promise.all([
    startTestServer({source: createEmbeddedSource('sample', async () => withoutTags(documents))}),
    startTestServer({source: createEmbeddedSource('sample with tags', async () => withTags(withoutTags(documents)))}),
  ])
})
afterAll(async () => {
  await Promise.all([plain.close(), tagged.close()])
})

const feedOf = async (server: TestServer) => {
  const response = await fetch(`${server.baseUrl}/feed.xml`)
  expect(response.status).toBe(200)
  const xml = await response.text()
  return {xml, partytime: parseWithPartytime(xml), feedsmith: parseRssFeed(xml)}
}

describe('the channel tags', () => {
  it('are in the feed when set, as both parsers read them', async () => {
    const {xml, partytime, feedsmith} = await feedOf(tagged)
    expect(partytime?.podcastTxt).toEqual([{value: 'S6lpp-7ZCn8-dZfGc-OoyaG', purpose: 'applepodcastsverify'}])
    expect(feedsmith.podcast?.txts).toEqual([{display: 'S6lpp-7ZCn8-dZfGc-OoyaG', purpose: 'applepodcastsverify'}])
    expect(partytime?.medium).toBe('podcast')
    expect(partytime?.itunesBlock).toBe(true)
    expect(partytime?.itunesComplete).toBe(true)
    expect(partytime?.itunesNewFeedUrl).toBe('https://feeds.codetalks.example/feed.xml')
    expect(partytime?.image).toMatchObject({
      title: 'קוד טוקס',
      url: expect.stringMatching(/^https:\/\/cdn\.sanity\.io\//),
    })
    expect(partytime?.podroll?.map((show) => show.feedGuid)).toEqual([OTHER_SHOW_GUID, podcastGuidOf(OTHER_SHOW_URL)])
    expect(feedsmith.podcast?.updateFrequency).toMatchObject({
      display: 'כל שבועיים',
      rrule: 'FREQ=WEEKLY;INTERVAL=2',
    })
    expect(feedsmith.podcast?.podroll?.remoteItems?.[1]).toMatchObject({feedUrl: OTHER_SHOW_URL})
    expect(feedsmith.itunes).toMatchObject({block: true, complete: true})
    // Apple's spelling: any value but Yes has no effect.
    expect(xml).toContain('<itunes:block>Yes</itunes:block>')
    expect(xml).toContain('<itunes:complete>Yes</itunes:complete>')
  })

  it('leave out a bad setting and report it on /status, and the rest of the feed is served', async () => {
    const {xml} = await feedOf(tagged)
    expect(xml).not.toContain('insecure.example')
    expect(xml).not.toContain('x'.repeat(200))
    const status = (await (await fetch(`${tagged.baseUrl}/status`)).json()) as {
      problems: {document_id: string; severity: string; messages: string[]}[]
    }
    const settings = status.problems.find((problem) => problem.document_id === 'podcastSettings')
    expect(settings?.severity).toBe('warning')
    expect(settings?.messages).toEqual([
      expect.stringMatching(/^txts\.1\.purpose: .*left out of the feed$/),
      expect.stringMatching(/^podroll\.2\.feed_url: .*left out of the feed$/),
    ])
  })

  it('are absent when not set, except podcast:medium, the namespace default', async () => {
    const {xml, partytime} = await feedOf(plain)
    for (const tag of [
      'podcast:txt',
      'podcast:updateFrequency',
      'podcast:podroll',
      'itunes:new-feed-url',
      'itunes:block',
      'itunes:complete',
    ])
      expect(xml, tag).not.toContain(`<${tag}`)
    expect(partytime?.itunesBlock).toBe(false)
    expect(partytime?.medium).toBe('podcast')
  })
})

describe('items', () => {
  it('carry itunes:title without the "פרק N:" prefix when itunes:episode is present', async () => {
    const {feedsmith} = await feedOf(plain)
    const numbered = feedsmith.items?.filter((item) => item.itunes?.episode !== undefined) ?? []
    expect(numbered.length).toBeGreaterThan(10)
    for (const item of numbered) {
      expect(item.title).toMatch(/^פרק \d+: /)
      expect(item.itunes?.title).toBe(item.title?.replace(/^פרק \d+: /, ''))
    }
    const unnumbered = feedsmith.items?.filter((item) => item.itunes?.episode === undefined) ?? []
    expect(unnumbered.every((item) => item.itunes?.title === undefined)).toBe(true)
  })

  it('carry podcast:episode and podcast:season beside the iTunes numbers, as both parsers read them', async () => {
    const {feedsmith, partytime} = await feedOf(plain)
    const numbered = feedsmith.items?.filter((item) => item.itunes?.episode !== undefined) ?? []
    expect(numbered.length).toBeGreaterThan(10)
    for (const item of feedsmith.items ?? []) {
      expect(item.podcast?.episode?.number, item.title).toBe(item.itunes?.episode)
      expect(item.podcast?.season?.number, item.title).toBe(item.itunes?.season)
    }
    expect(feedsmith.items?.some((item) => item.podcast?.season !== undefined)).toBe(true)
    const read = partytime?.items.filter((item) => item.podcastEpisode !== undefined) ?? []
    expect(read.map((item) => item.podcastEpisode?.number)).toEqual(numbered.map((item) => item.itunes?.episode))
  })

  it('serve a trailer numbered 0 with no itunes:episode, and its VTT transcript as Hebrew captions', async () => {
    const {partytime} = await feedOf(tagged)
    const trailer = partytime?.items.find((item) => item.guid === TRAILER_ID)
    expect(trailer?.itunesEpisodeType).toBe('trailer')
    expect(trailer?.itunesEpisode).toBeUndefined()
    expect(trailer?.podcastTranscripts).toEqual([
      expect.objectContaining({url: 'https://media.codetalks.example/trailer.vtt', language: 'he', rel: 'captions'}),
    ])
    const api: unknown = await (await fetch(`${tagged.baseUrl}/api/v1/episodes/ep-0-trailer.json`)).json()
    expect(api).toMatchObject({data: {episode_number: null, episode_type: 'trailer'}})
  })
})
