// The Studio's "Feed" view against the server: the same GROQ (run by groq-js, as the Content Lake
// would for the Studio), the same mapper and the feed's own item writer give exactly the <item>
// that /feed.xml serves, or say why the episode is not in the feed.
import {readFile} from 'node:fs/promises'
import {evaluate, parse} from 'groq-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildFeedPreview, voiceSlugsFor} from '../../plugin/lib/feed-preview.ts'
import {previewSettings} from '../../plugin/lib/preview-settings.ts'
import {EPISODE_PREVIEW_QUERY, PODCAST_SETTINGS_QUERY, VOICES_BY_SLUG_QUERY} from '../../catalog/queries.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
let server: TestServer
let servedFeed: string
beforeAll(async () => {
  server = await startTestServer()
  servedFeed = await (await fetch(`${server.baseUrl}/feed.xml`)).text()
})
afterAll(() => server.close())

const settings = () =>
  previewSettings(
    {publicBaseUrl: server.config.publicBaseUrl, siteUrl: server.config.siteUrl, feedUrl: server.config.feedUrl},
    server.config.images,
  )

async function run(
  query: string,
  params: Record<string, unknown>,
  dataset: SanityDocument[] = documents,
): Promise<unknown> {
  const byId = new Map(dataset.map((document) => [document._id, document]))
  return (await evaluate(parse(query), {dataset, params, dereference: ({_ref}) => byId.get(_ref)})).get()
}

async function preview(id: string, dataset: SanityDocument[] = documents) {
  const episode = await run(EPISODE_PREVIEW_QUERY, {id}, dataset)
  const podcast = await run(PODCAST_SETTINGS_QUERY, {}, dataset)
  const voices = await run(VOICES_BY_SLUG_QUERY, {slugs: voiceSlugsFor(episode, podcast)}, dataset)
  return buildFeedPreview(episode, podcast, Array.isArray(voices) ? voices : [], settings())
}

const publishedEpisodes = documents.filter(
  (document) => document._type === 'episode' && !document._id.startsWith('drafts.'),
)

describe('the Feed view', () => {
  it("shows each episode's <item> exactly as /feed.xml serves it", async () => {
    const items = [...servedFeed.matchAll(/<item>[\s\S]*?<\/item>/g)].map((match) => match[0])
    let shown = 0
    for (const document of publishedEpisodes) {
      const result = await preview(document._id)
      if (result.status !== 'served') continue
      shown++
      expect(items, document._id).toContain(result.xml)
    }
    expect(shown).toBe(items.length)
  })

  it('says when a scheduled episode goes on air, in Israel time, instead of its item', async () => {
    const document = publishedEpisodes.find((episode) => episode['audioUrl'])
    if (!document) throw new Error('no episode with audio')
    const scheduled = {...document, publishedAt: '2099-06-01T06:00:00.000Z'}
    const result = await preview(document._id, [scheduled, ...documents.filter((other) => other !== document)])
    expect(result).toEqual({status: 'scheduled', notice: 'ייצא לאוויר ב-1.6.2099, 9:00 (שעון ישראל)'})
  })

  it('says why an episode without audio is not in the feed', async () => {
    const withoutAudio = publishedEpisodes.find((document) => !document['audioUrl'])
    expect(withoutAudio).toBeDefined()
    const result = await preview(withoutAudio?._id ?? '')
    expect(result).toEqual({status: 'not-served', reasons: [expect.stringContaining('אין לפרק אודיו')]})
  })

  it("says so when the podcast settings are missing or break Apple's rules", async () => {
    const episodeId = publishedEpisodes.find((document) => document['audioUrl'])?._id ?? ''
    const withoutSettings = documents.filter((document) => document._id !== 'podcastSettings')
    expect(await preview(episodeId, withoutSettings)).toEqual({
      status: 'not-served',
      reasons: [expect.stringContaining('הגדרות הפודקאסט')],
    })
    const longDescription = documents.map((document) =>
      document._id === 'podcastSettings' ? {...document, description: 'א'.repeat(2001)} : document,
    )
    expect(await preview(episodeId, longDescription)).toEqual({
      status: 'not-served',
      reasons: [expect.stringContaining('4000 bytes')],
    })
  })
})
