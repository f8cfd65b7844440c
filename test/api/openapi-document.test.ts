// The OpenAPI document built inside each test (the shared one in test/helpers is built at import):
// what it promises clients beyond what the Redocly linter checks.
import {describe, expect, it} from 'vitest'
import {buildOpenApiDocument} from '../../server/api/openapi.ts'

const settings = {publicBaseUrl: 'https://api.example', apiName: 'Example Catalog'}
type Json = Record<string, unknown>

/** Every object in the document, with its JSON path. */
function* objects(value: unknown, path = '$'): Generator<[string, Json]> {
  if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* objects(item, `${path}[${index}]`)
  else if (value !== null && typeof value === 'object') {
    yield [path, value as Json]
    for (const [key, item] of Object.entries(value)) yield* objects(item, `${path}.${key}`)
  }
}

const CONDITIONAL = [
  'header:if-none-match',
  'header:if-modified-since',
  'header:if-match',
  'header:if-unmodified-since',
]

describe('the OpenAPI document', () => {
  it('names the API, its servers, its tags, its license and its portal on the configured origin', () => {
    const document = buildOpenApiDocument(settings)
    expect(document.info.title).toBe('Example Catalog')
    expect(document.info.version).toBe('v1')
    expect(document.info.description?.split('\n\n')).toHaveLength(3)
    expect(document.info.license?.url).toBe('https://api.example/docs#content-rights')
    expect(document.info.contact).toBeUndefined()
    expect(document.servers).toEqual([
      {url: 'https://api.example/api/v1', description: 'Live API'},
      {url: 'https://api.example/api/v1/sandbox', description: 'Sandbox: the same read-only documents, byte for byte'},
    ])
    expect(document.tags?.map((tag) => tag.name)).toEqual(['Service', 'Episodes', 'Meetups', 'Voices', 'Search'])
    expect(document.externalDocs?.url).toBe('https://api.example/docs')
  })

  it('is OpenAPI 3.1, unauthenticated, with its text in place', () => {
    const document = buildOpenApiDocument(settings)
    expect(document.openapi).toBe('3.1.0')
    expect(document.security).toEqual([])
    for (const paragraph of document.info.description?.split('\n\n') ?? []) expect(paragraph.length).toBeGreaterThan(40)
    expect(document.info.license?.name).toMatch(/^Catalog metadata may be reused with attribution/)
    expect(document.externalDocs?.description).toBe('Developer portal')
  })

  it('has each operation under its path, id, tag and summary, paged or by slug', () => {
    const document = buildOpenApiDocument(settings)
    const rows = Object.entries(document.paths ?? {}).map(([path, item]) => {
      const get = item?.get
      const names = (get?.parameters ?? []).map((parameter) => ('name' in parameter ? parameter.name : ''))
      expect(get?.summary, path).toMatch(/^\S.{5,}/)
      expect(get?.security, path).toEqual([])
      return [
        path,
        get?.operationId,
        get?.tags?.join(),
        names.includes('slug'),
        names.includes('limit') && names.includes('cursor'),
      ]
    })
    expect(rows).toEqual([
      ['/index.json', 'getServiceIndex', 'Service', false, false],
      ['/episodes.json', 'listEpisodes', 'Episodes', false, true],
      ['/episodes/{slug}.json', 'getEpisode', 'Episodes', true, false],
      ['/episodes/{slug}/chapters.json', 'getEpisodeChapters', 'Episodes', true, false],
      ['/episodes/{slug}/transcript.vtt', 'getEpisodeTranscriptVtt', 'Episodes', true, false],
      ['/episodes/{slug}/transcript.srt', 'getEpisodeTranscriptSrt', 'Episodes', true, false],
      ['/episodes/{slug}/transcript.json', 'getEpisodeTranscriptJson', 'Episodes', true, false],
      ['/meetups.json', 'listMeetups', 'Meetups', false, true],
      ['/meetups/{slug}.json', 'getMeetup', 'Meetups', true, false],
      ['/voices.json', 'listVoices', 'Voices', false, true],
      ['/voices/{slug}.json', 'getVoice', 'Voices', true, false],
      ['/all.json', 'getEverything', 'Service', false, false],
      ['/changes.json', 'getChanges', 'Service', false, true],
      ['/events', 'streamEvents', 'Service', false, false],
      ['/search.json', 'searchCatalog', 'Search', false, false],
    ])
    expect(document.paths?.['/all.json']?.get?.responses?.['405']).toMatchObject({
      description: 'Only GET and HEAD are allowed.',
    })
  })

  it('gives a contact only when one is configured', () => {
    expect(buildOpenApiDocument({...settings, contactEmail: 'api@example.com'}).info.contact).toEqual({
      email: 'api@example.com',
    })
  })

  it('describes every tag, operation, parameter and response, and most headers, in words', () => {
    const document = buildOpenApiDocument(settings)
    const undescribed: string[] = []
    for (const [path, object] of objects(document)) {
      const describable = /\.(tags|parameters)\[\d+\]$|\.paths\.[^.]+\.get$|\.responses\.\d{3}$|\.headers\.[^.]+$/.test(
        path,
      )
      if (describable && !(typeof object.description === 'string' && object.description.trim().length > 0))
        undescribed.push(path)
    }
    // Headers whose value says it all, or whose description is the schema's own (ratelimit-policy).
    const selfExplained =
      /\.responses\.((200|206|304)\.headers\.(cache-control|ratelimit-policy)|405\.headers\.allow|410\.headers\.link)$/
    expect(undescribed.filter((path) => !selfExplained.test(path))).toEqual([])
    expect(Object.keys(document.paths ?? {}).length).toBe(15)
  })

  it('says HEAD is accepted, which operations page and which take a slug', () => {
    const document = buildOpenApiDocument(settings)
    const get = (path: string) => document.paths?.[path]?.get
    for (const path of Object.keys(document.paths ?? {}))
      expect(get(path)?.description, path).toMatch(/\S HEAD is accepted too\.$/)
    const parameters = (path: string) =>
      (get(path)?.parameters ?? []).map((parameter) => ('name' in parameter ? `${parameter.in}:${parameter.name}` : ''))
    expect(parameters('/episodes.json')).toEqual([
      'query:limit',
      'query:cursor',
      'header:if-none-match',
      'header:if-modified-since',
      'header:if-match',
      'header:if-unmodified-since',
    ])
    expect(parameters('/voices/{slug}.json')).toEqual(['path:slug', ...CONDITIONAL])
    expect(parameters('/all.json')).toEqual(CONDITIONAL)
    expect(parameters('/search.json')).toEqual(['query:q', 'query:limit', ...CONDITIONAL])
    expect(parameters('/changes.json')).toEqual(['query:since', 'query:limit', 'query:cursor', ...CONDITIONAL])
    expect(get('/episodes.json')?.responses?.['400']).toMatchObject({
      description: 'A bad `limit` or `cursor`, or a malformed URL.',
    })
    expect(get('/index.json')?.responses?.['400']).toMatchObject({description: 'A malformed URL.'})
    expect(get('/meetups/{slug}.json')?.responses?.['404']).toMatchObject({
      description: 'No item has this slug. Re-read the list; slugs change only when content is renamed.',
    })
    expect(get('/meetups.json')?.responses?.['404']).toMatchObject({description: 'No such path.'})
    expect(get('/index.json')?.tags).toEqual(['Service'])
    expect(get('/voices.json')?.tags).toEqual(['Voices'])
  })

  it('documents the refusal headers: Allow on 405, Link on 410, Retry-After on 429, none on 500', () => {
    const responses = buildOpenApiDocument(settings).paths?.['/episodes.json']?.get?.responses ?? {}
    const headers = (status: string) => Object.keys((responses[status] as {headers?: Json} | undefined)?.headers ?? {})
    expect(headers('405')).toEqual(['allow'])
    expect(headers('410')).toEqual(['link'])
    expect(headers('429')).toEqual(['retry-after'])
    expect(headers('500')).toEqual([])
    expect(headers('304')).toEqual(['etag', 'last-modified', 'cache-control'])
    expect(headers('412')).toEqual(['etag', 'last-modified'])
    expect(Object.keys((responses['200'] as {content: Json}).content)).toEqual(['application/json'])
    expect(Object.keys((responses['404'] as {content: Json}).content)).toEqual(['application/problem+json'])
  })

  it('publishes open schemas, so clients ignore fields added later', () => {
    const closed = [...objects(buildOpenApiDocument(settings))]
      .filter(([, object]) => object.additionalProperties === false)
      .map(([path]) => path)
    expect(closed).toEqual([])
  })

  it('bounds the page size and names the default', () => {
    const limit = buildOpenApiDocument(settings).paths?.['/episodes.json']?.get?.parameters?.find(
      (parameter) => 'name' in parameter && parameter.name === 'limit',
    )
    expect(limit).toMatchObject({schema: {minimum: 1, maximum: 500, default: 100}})
  })
})
