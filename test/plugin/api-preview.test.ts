// The Studio's "API" view against the server: the same GROQ projection (run here by groq-js, as
// the Content Lake would for the Studio) and the same mapper give the bytes the API serves.
import {readFile} from 'node:fs/promises'
import {evaluate, parse} from 'groq-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildApiPreview, PREVIEW_QUERIES} from '../../plugin/api-preview.ts'
import {directionOf} from '../../plugin/direction.ts'
import {previewSettings} from '../../plugin/preview-settings.ts'
import type {CollectionName} from '../../server/api/v1/links.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../helpers/server.ts'

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

// What the Studio's plugin is configured with, matching the test server's configuration.
const settings = () =>
  previewSettings({publicBaseUrl: server.config.publicBaseUrl, siteUrl: server.config.siteUrl, feedUrl: server.config.feedUrl}, server.config.images)

async function previewRow(collection: CollectionName, id: string, dataset: SanityDocument[] = documents): Promise<unknown> {
  const byId = new Map(dataset.map((document) => [document._id, document]))
  return (await evaluate(parse(PREVIEW_QUERIES[collection]), {dataset, params: {id}, dereference: ({_ref}) => byId.get(_ref)})).get()
}

const published = (type: string) => documents.filter((document) => document._type === type && !document._id.startsWith('drafts.'))

describe('the API view', () => {
  it.each([
    ['episodes', 'episode'],
    ['meetups', 'meetup'],
    ['voices', 'voice'],
  ] as const)('shows exactly what GET serves for every published %s', async (collection, type) => {
    for (const document of published(type)) {
      const preview = buildApiPreview(collection, await previewRow(collection, document._id), settings())
      if (preview.status !== 'served') throw new Error(`${document._id}: ${JSON.stringify(preview)}`)
      const response = await fetch(`${server.baseUrl}${preview.path}`, {headers: {'Accept-Encoding': 'identity'}})
      expect(response.status).toBe(200)
      expect(JSON.parse(preview.json)).toEqual(await response.json())
    }
  })

  it('lists the contract problems of a document the API would refuse', async () => {
    const episode = published('episode')[0]
    if (!episode) throw new Error('no episode')
    const broken = {...episode, publishedAt: 'soon', tags: ['Kubernetes']}
    const preview = buildApiPreview('episodes', await previewRow('episodes', episode._id, [broken, ...documents.filter((document) => document !== episode)]), settings())
    expect(preview.status).toBe('rejected')
    if (preview.status !== 'rejected') return
    // The server's own messages, as /status reports them.
    expect(preview.problems).toEqual(['published_date: Invalid ISO date', 'tags.0: must be an English lowercase tag'])
  })

  it('says so when there is no document yet', async () => {
    expect(buildApiPreview('voices', await previewRow('voices', 'no-such-id'), settings())).toEqual({status: 'missing'})
  })
})

describe('text direction', () => {
  it('is right-to-left for Hebrew content and left-to-right for Latin fields, on catalog types only', () => {
    expect(directionOf('episode', ['title'])).toBe('rtl')
    expect(directionOf('episode', ['faq', {_key: 'a'}, 'answer'])).toBe('rtl')
    expect(directionOf('episode', ['takeaways', {_key: 'b'}])).toBe('rtl')
    expect(directionOf('voice', ['bio'])).toBe('rtl')
    expect(directionOf('episode', ['slug'])).toBe('ltr')
    expect(directionOf('episode', ['tags', 0])).toBe('ltr')
    expect(directionOf('voice', ['role'])).toBe('ltr')
    expect(directionOf('meetup', ['videoId'])).toBe('ltr')
    expect(directionOf('post', ['title'])).toBeUndefined()
    expect(directionOf(undefined, ['title'])).toBeUndefined()
  })
})
