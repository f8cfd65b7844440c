// Integration: the Podcasting 2.0 tags of issue 54, item 2 over real HTTP, from the sample dataset:
// podcast:soundbite, podcast:season's name, podcast:license (channel and item), podcast:trailer
// and podcast:alternateEnclosure with podcast:source, each read back from /feed.xml by feedsmith
// and by podcast-partytime and beside the API's item. A second server serves the sample with
// values that break the rules: each is left out with a /status warning, the episode and the feed
// stay served, and the feed stays well-formed XML (xmllint, as hostile-text.integration does).
import {execFileSync} from 'node:child_process'
import {parseRssFeed} from 'feedsmith'
import {parseFeed as parseWithPartytime} from 'podcast-partytime'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {ensureDebianProgram} from '../../support/debian.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {readContract} from '../helpers/contract.ts'
import {sampleDocuments} from '../helpers/sample.ts'

const XMLLINT = ensureDebianProgram('/usr/bin/xmllint', ['libxml2-utils'])

const TAGGED = 'ep-24-redis-internals'
const TAGGED_ID = 'f8fe4112-b825-4622-a3a7-30a2cc0eb1e9'
const LICENSED = 'bonus-listener-questions'
const TRAILER = 'trailer-code-talks'
const SEASON_2 = 'עונה 2: מהשרת ועד המכשיר'

const slugOf = (document: SanityDocument) => (document['slug'] as {current?: string} | undefined)?.current

/** The sample with a value that breaks each rule, on the episode that carries the tags and on the settings. */
function withBrokenValues(documents: readonly SanityDocument[]): SanityDocument[] {
  return documents.map((document) => {
    if (document._id === 'podcastSettings') return {...document, license: {identifier: 'our-own-terms'}}
    if (slugOf(document) !== TAGGED) return document
    return {
      ...document,
      soundbites: [
        {_key: 'short', start: 100, duration: 10},
        {_key: 'late', start: 2700, duration: 30},
        {_key: 'good', start: 612, duration: 48, title: 'נשאר'},
      ],
      license: {identifier: 'CC-BY-4.0'},
      alternateEnclosures: [
        {_key: 'plain', url: 'http://media.codetalks.example/ep-24.opus', type: 'audio/opus', length: 1000},
        {
          _key: 'one',
          url: 'https://a.codetalks.example/ep-24.mp3',
          type: 'audio/mpeg',
          length: 43284867,
          default: true,
        },
        {
          _key: 'two',
          url: 'https://b.codetalks.example/ep-24.mp3',
          type: 'audio/mpeg',
          length: 43284867,
          default: true,
        },
        {_key: 'video', url: 'https://media.codetalks.example/ep-24.mp4', type: 'video/mp4', length: 5000, height: 720},
      ],
    }
  })
}

let sample: TestServer
let broken: TestServer
beforeAll(async () => {
  ;[sample, broken] = await Promise.all([
    startTestServer({source: createEmbeddedSource('sample', async () => structuredClone(sampleDocuments))}),
    startTestServer({source: createEmbeddedSource('broken', async () => withBrokenValues(sampleDocuments))}),
  ])
})
afterAll(async () => {
  await Promise.all([sample.close(), broken.close()])
})

const feedOf = async (server: TestServer) => {
  const response = await fetch(`${server.baseUrl}/feed.xml`)
  expect(response.status).toBe(200)
  const xml = await response.text()
  const partytime = parseWithPartytime(xml)
  if (!partytime) throw new Error('podcast-partytime could not read the feed')
  return {xml, partytime, feedsmith: parseRssFeed(xml)}
}
const episodeOf = async (server: TestServer, slug: string) =>
  (await readContract(await fetch(`${server.baseUrl}/api/v1/episodes/${slug}.json`), itemEnvelope(episodeSchema))).data

describe('the sample feed', () => {
  it('carries soundbites as both parsers read them, the same as the API item', async () => {
    const {feedsmith, partytime} = await feedOf(sample)
    const item = feedsmith.items?.find((entry) => entry.guid?.value === TAGGED_ID)
    expect(item?.podcast?.soundbites).toEqual([
      {startTime: 612, duration: 48, display: 'למה LRU הוא לא באמת LRU'},
      {startTime: 1934.5, duration: 75},
    ])
    const read = partytime.items.find((entry) => entry.guid === TAGGED_ID)
    expect(read?.podcastSoundbites?.map(({startTime, duration}) => ({startTime, duration}))).toEqual([
      {startTime: 612, duration: 48},
      {startTime: 1934.5, duration: 75},
    ])
    expect(read?.podcastSoundbites?.[0]?.title).toBe('למה LRU הוא לא באמת LRU')
    expect((await episodeOf(sample, TAGGED)).soundbites).toEqual([
      {start_seconds: 612, duration_seconds: 48, title: 'למה LRU הוא לא באמת LRU'},
      {start_seconds: 1934.5, duration_seconds: 75, title: null},
    ])
  })

  it("names the season in podcast:season on every episode of season 2, and not on season 1's", async () => {
    const {feedsmith, partytime} = await feedOf(sample)
    const seasons = (feedsmith.items ?? []).map((item) => item.podcast?.season)
    expect(seasons.filter((season) => season?.number === 2).length).toBeGreaterThan(5)
    for (const season of seasons) {
      if (season?.number === 2) expect(season).toEqual({number: 2, name: SEASON_2})
      if (season?.number === 1) expect(season).toEqual({number: 1})
    }
    expect(partytime.items.find((item) => item.guid === TAGGED_ID)?.podcastSeason).toEqual({number: 2, name: SEASON_2})
    expect((await episodeOf(sample, TAGGED)).season_name).toBe(SEASON_2)
  })

  it("carries the show's license in the channel and an episode's own in its item", async () => {
    const {feedsmith, partytime} = await feedOf(sample)
    expect(feedsmith.podcast?.license).toEqual({
      display: 'cc-by-4.0',
      url: 'https://creativecommons.org/licenses/by/4.0/',
    })
    expect(partytime.license).toEqual({identifier: 'cc-by-4.0', url: 'https://creativecommons.org/licenses/by/4.0/'})
    const bonus = await episodeOf(sample, LICENSED)
    const license = {identifier: 'cc-by-nc-nd-4.0', url: 'https://creativecommons.org/licenses/by-nc-nd/4.0/'}
    expect(bonus.license).toEqual(license)
    const guid = sampleDocuments.find((document) => slugOf(document) === LICENSED)?._id
    expect(feedsmith.items?.find((item) => item.guid?.value === guid)?.podcast?.license).toEqual({
      display: license.identifier,
      url: license.url,
    })
    expect(partytime.items.find((item) => item.guid === guid)?.license).toEqual(license)
    // An episode without its own license leaves the channel's to apply.
    expect(feedsmith.items?.find((item) => item.guid?.value === TAGGED_ID)?.podcast?.license).toBeUndefined()
  })

  it('names the trailer episode in podcast:trailer, with its audio, release time and season', async () => {
    const {feedsmith, partytime} = await feedOf(sample)
    const trailer = await episodeOf(sample, TRAILER)
    expect(trailer.episode_type).toBe('trailer')
    if (!trailer.audio) throw new Error('the sample trailer has no audio')
    expect(feedsmith.podcast?.trailers).toEqual([
      {
        display: trailer.title,
        url: trailer.audio.url,
        pubDate: new Date(trailer.published_at).toUTCString(),
        length: trailer.audio.length_bytes,
        type: trailer.audio.mime_type,
        season: 1,
      },
    ])
    expect(partytime.trailers).toEqual([
      expect.objectContaining({
        url: trailer.audio.url,
        pubdate: new Date(trailer.published_at),
        length: trailer.audio.length_bytes,
        type: 'audio/mpeg',
        season: 1,
      }),
    ])
  })

  it('lists the enclosure as the default podcast:alternateEnclosure, its mirror as a second source, then the other versions', async () => {
    const {feedsmith, partytime} = await feedOf(sample)
    const episode = await episodeOf(sample, TAGGED)
    if (!episode.audio) throw new Error('the tagged episode has no audio')
    const item = feedsmith.items?.find((entry) => entry.guid?.value === TAGGED_ID)
    expect(item?.enclosures).toEqual([
      {url: episode.audio.url, length: episode.audio.length_bytes, type: episode.audio.mime_type},
    ])
    expect(item?.podcast?.alternateEnclosures).toEqual([
      {
        type: 'audio/mpeg',
        length: episode.audio.length_bytes,
        bitrate: 128000,
        title: 'רגיל',
        default: true,
        sources: [{uri: episode.audio.url}, {uri: 'https://mirror.codetalks.example/audio/ep-24-redis-internals.mp3'}],
      },
      {
        type: 'audio/opus',
        length: 10821037,
        bitrate: 32000,
        title: 'איכות נמוכה',
        sources: [{uri: 'https://media.codetalks.example/audio/ep-24-redis-internals-low.opus'}],
      },
      {
        type: 'video/mp4',
        length: 612345678,
        bitrate: 1800000,
        height: 720,
        title: 'וידאו',
        sources: [{uri: 'https://media.codetalks.example/video/ep-24-redis-internals-720.mp4'}],
      },
    ])
    const read = partytime.items.find((entry) => entry.guid === TAGGED_ID)?.alternativeEnclosures
    expect(read?.map((alternate) => [alternate.type, alternate.default, alternate.source.map(({uri}) => uri)])).toEqual(
      [
        ['audio/mpeg', true, [episode.audio.url, 'https://mirror.codetalks.example/audio/ep-24-redis-internals.mp3']],
        ['audio/opus', false, ['https://media.codetalks.example/audio/ep-24-redis-internals-low.opus']],
        ['video/mp4', false, ['https://media.codetalks.example/video/ep-24-redis-internals-720.mp4']],
      ],
    )
    expect(episode.alternate_enclosures.map((alternate) => [alternate.mime_type, alternate.default])).toEqual([
      ['audio/mpeg', true],
      ['audio/opus', false],
      ['video/mp4', false],
    ])
    // An item without other versions lists none, not its enclosure alone.
    expect(feedsmith.items?.filter((entry) => entry.podcast?.alternateEnclosures).length).toBe(1)
  })
})

describe('values that break a rule', () => {
  it('are left out with a /status warning, while the episode and the feed stay served', async () => {
    const {xml, feedsmith} = await feedOf(broken)
    expect(execFileSync(XMLLINT, ['--noout', '-'], {input: xml}).toString()).toBe('')
    const item = feedsmith.items?.find((entry) => entry.guid?.value === TAGGED_ID)
    expect(item?.title).toBe('פרק 24: מה קורה בתוך Redis')
    expect(item?.podcast?.soundbites).toEqual([{startTime: 612, duration: 48, display: 'נשאר'}])
    expect(item?.podcast?.license).toBeUndefined()
    expect(feedsmith.podcast?.license).toBeUndefined()
    expect(item?.podcast?.alternateEnclosures?.map((alternate) => alternate.sources)).toEqual([
      [{uri: 'https://media.codetalks.example/audio/ep-24-redis-internals.mp3'}],
      [{uri: 'https://media.codetalks.example/ep-24.mp4'}],
    ])
    expect(xml).not.toContain('http://media.codetalks.example/ep-24.opus')
    expect(xml).not.toContain('https://a.codetalks.example')
    expect(xml).not.toContain('our-own-terms')

    const episode = await episodeOf(broken, TAGGED)
    expect(episode.soundbites.map((soundbite) => soundbite.start_seconds)).toEqual([612])
    expect(episode.license).toBeNull()
    expect(episode.alternate_enclosures.map((alternate) => alternate.url)).toEqual([
      'https://media.codetalks.example/ep-24.mp4',
    ])

    const status = (await (await fetch(`${broken.baseUrl}/status`)).json()) as {
      problems: {document_id: string; severity: string; messages: string[]}[]
    }
    expect(status.problems.find((problem) => problem.document_id === TAGGED_ID)).toEqual({
      document_id: TAGGED_ID,
      collection: 'episodes',
      severity: 'warning',
      messages: [
        'soundbites.0: left out: lasts 10 seconds, not 15 to 120',
        "soundbites.1: left out: ends at 45:30, past the episode's end (45:05)",
        expect.stringMatching(/^license: left out: "CC-BY-4\.0" is not a lower-case license identifier/),
        'alternate_enclosures.0: left out: "http://media.codetalks.example/ep-24.opus" is not an https URL in printable ASCII',
        expect.stringMatching(/^alternate_enclosures\.1: left out: one of 2 entries marked default/),
        expect.stringMatching(/^alternate_enclosures\.2: left out: one of 2 entries marked default/),
      ],
    })
    expect(status.problems.find((problem) => problem.document_id === 'podcastSettings')).toMatchObject({
      severity: 'warning',
      messages: [
        expect.stringMatching(/^license: left out: "our-own-terms" is not a known license.*left out of the feed$/),
      ],
    })
  })
})
