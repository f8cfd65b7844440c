// The Studio's "API" view against the server: the same GROQ projection (run here by groq-js, as
// the Content Lake would for the Studio) and the same mapper give the bytes the API serves.
import {readFile} from 'node:fs/promises'
import {evaluate, parse} from 'groq-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {buildApiPreview, PREVIEW_QUERIES} from '../../plugin/lib/api-preview.ts'
import {directionOf} from '../../plugin/lib/direction.ts'
import {studioFieldOf} from '../../plugin/lib/objections.ts'
import {previewSettings} from '../../plugin/lib/preview-settings.ts'
import {createSchema} from 'sanity'
import {episodeRowSchema} from '../../catalog/v1/episode.ts'
import {meetupRowSchema} from '../../catalog/v1/meetup.ts'
import {voiceRowSchema} from '../../catalog/v1/voice.ts'
import {schemaTypes} from '../../schemas/index.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

// What the Studio's plugin is configured with, matching the test server's configuration.
const settings = () =>
  previewSettings(
    {publicBaseUrl: server.config.publicBaseUrl, siteUrl: server.config.siteUrl, feedUrl: server.config.feedUrl},
    server.config.images,
  )

async function previewRow(
  collection: CollectionName,
  id: string,
  dataset: SanityDocument[] = documents,
): Promise<unknown> {
  const byId = new Map(dataset.map((document) => [document._id, document]))
  return (
    await evaluate(parse(PREVIEW_QUERIES[collection]), {dataset, params: {id}, dereference: ({_ref}) => byId.get(_ref)})
  ).get()
}

const published = (type: string) =>
  documents.filter((document) => document._type === type && !document._id.startsWith('drafts.'))

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
    const preview = buildApiPreview(
      'episodes',
      await previewRow('episodes', episode._id, [broken, ...documents.filter((document) => document !== episode)]),
      settings(),
    )
    expect(preview.status).toBe('rejected')
    if (preview.status !== 'rejected') return
    // The server's own messages, as /status reports them.
    expect(preview.problems).toEqual([
      'tags.0: must be an English lowercase tag',
      'published_at: fits none of its forms (Invalid ISO date; Invalid ISO datetime); got "soon"',
    ])
  })

  // The Studio's field titles, as the view reads them from the workspace schema.
  const schema = createSchema({name: 'catalog', types: schemaTypes})
  const fieldTitleIn = (type: string) => (name: string) => {
    const schemaType = schema.get(type)
    return schemaType && 'fields' in schemaType && Array.isArray(schemaType.fields)
      ? schemaType.fields.find((field) => field.name === name)?.type.title
      : undefined
  }

  it("words the objections in Hebrew under the form's field titles for the editors", async () => {
    const episode = published('episode')[0]
    if (!episode) throw new Error('no episode')
    const broken = {
      ...episode,
      title: undefined,
      publishedAt: 'soon',
      faq: [{_key: 'a', _type: 'faqEntry', question: 'למה?', answer: 42}],
    }
    const row = await previewRow('episodes', episode._id, [
      broken,
      ...documents.filter((document) => document !== episode),
    ])
    const preview = buildApiPreview('episodes', row, settings(), fieldTitleIn('episode'))
    expect(preview).toEqual({
      status: 'rejected',
      problems: [
        'כותרת: חסר: יש למלא את השדה',
        'שאלות ותשובות (פריט 1): קלט לא תקין: צריך להיות מחרוזת, התקבל מספר',
        'מועד פרסום: קלט לא תקין',
      ],
    })
  })

  it.each([
    ['episodes', 'episode', episodeRowSchema],
    ['meetups', 'meetup', meetupRowSchema],
    ['voices', 'voice', voiceRowSchema],
  ] as const)('names every field of a %s row by a field the Studio form has', (collection, type, rowSchema) => {
    const unnamed = Object.keys(rowSchema.shape)
      .filter((field) => !field.startsWith('_'))
      .filter((field) => fieldTitleIn(type)(studioFieldOf(collection, field)) === undefined)
    expect(unnamed).toEqual([])
  })

  it('says when a scheduled episode goes on air, in Israel time, instead of the item', async () => {
    const episode = published('episode')[0]
    if (!episode) throw new Error('no episode')
    const scheduled = {...episode, publishedAt: '2099-01-01T08:30:00.000Z'}
    const row = await previewRow('episodes', episode._id, [
      scheduled,
      ...documents.filter((document) => document !== episode),
    ])
    expect(buildApiPreview('episodes', row, settings())).toEqual({
      status: 'scheduled',
      notice: 'ייצא לאוויר ב-1.1.2099, 10:30 (שעון ישראל)',
    })
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
    expect(directionOf('podcastSettings', ['description'])).toBe('rtl')
    expect(directionOf('podcastSettings', ['owner', 'name'])).toBe('rtl')
    expect(directionOf('podcastSettings', ['owner', 'email'])).toBe('ltr')
    expect(directionOf('podcastSettings', ['podroll', {_key: 'a'}, 'title'])).toBe('rtl')
    expect(directionOf('podcastSettings', ['podroll', {_key: 'a'}, 'feedUrl'])).toBe('ltr')
    expect(directionOf('podcastSettings', ['txts', {_key: 'a'}, 'text'])).toBe('ltr')
    expect(directionOf('episode', ['chapters', {_key: 'c'}, 'start'])).toBe('ltr')
    expect(directionOf('episode', ['chapters', {_key: 'c'}, 'title'])).toBe('rtl')
    expect(directionOf('episode', ['soundbites', {_key: 's'}, 'title'])).toBe('rtl')
    expect(directionOf('episode', ['seasonName'])).toBe('rtl')
    expect(directionOf('episode', ['alternateEnclosures', {_key: 'a'}, 'title'])).toBe('rtl')
    expect(directionOf('episode', ['alternateEnclosures', {_key: 'a'}, 'url'])).toBe('ltr')
    expect(directionOf('episode', ['alternateEnclosures', {_key: 'a'}, 'type'])).toBe('ltr')
    expect(directionOf('episode', ['license', 'identifier'])).toBe('ltr')
    expect(directionOf('podcastSettings', ['license', 'url'])).toBe('ltr')
    expect(directionOf('meetup', ['videoId'])).toBe('ltr')
    expect(directionOf('post', ['title'])).toBeUndefined()
    expect(directionOf(undefined, ['title'])).toBeUndefined()
  })
})
