// Integration: a local HTTP stand-in of the Sanity query endpoint (groq-js over the sample
// dataset), the real @sanity/client pointed at it through SANITY_API_HOST, and two real app
// servers, one per content source, compared byte for byte.
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../server/config.ts'
import {createSource} from '../../server/content/create-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'

let standIn: Awaited<ReturnType<typeof startSanityStandIn>>
let embedded: TestServer
let sanity: TestServer
let documents: SanityDocument[]

beforeAll(async () => {
  documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
  embedded = await startTestServer()
  // The sample's image assets live in a placeholder project called "embedded".
  const environment = {
    SANITY_PROJECT_ID: 'embedded',
    SANITY_DATASET: 'production',
    SANITY_API_HOST: standIn.apiHost,
    SANITY_TOKEN: 'read-token',
  }
  const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test', ...environment})
  sanity = await startTestServer({environment, source: createSource(config.content)})
})
afterAll(async () => {
  await Promise.all([embedded.close(), sanity.close(), standIn.close()])
})

describe('the Sanity source', () => {
  it('queries the uncached API with the published perspective, the project header and the token', () => {
    expect(standIn.recorded.length).toBeGreaterThan(0)
    for (const query of standIn.recorded) {
      expect(query.path).toMatch(/^\/v2025-02-19\/data\/query\/production$/)
      expect(query.perspective).toBe('published')
      expect(query.projectIdHeader).toBe('embedded')
      expect(query.authorization).toBe('Bearer read-token')
    }
  })

  it('produces the same snapshot as the embedded source, path for path', () => {
    const fromEmbedded = embedded.store.current()
    const fromSanity = sanity.store.current()
    expect(fromSanity.paths).toEqual(fromEmbedded.paths)
    expect(fromSanity.paths.length).toBeGreaterThan(70)
    for (const path of fromEmbedded.paths) {
      expect(fromSanity.representation(path)?.etag, path).toBe(fromEmbedded.representation(path)?.etag)
    }
  })

  it('serves identical bytes over HTTP for every endpoint', async () => {
    const paths = [
      '/api/v1/index.json',
      '/api/v1/all.json',
      '/api/v1/episodes.json?limit=4',
      '/api/v1/voices/jenny-katz.json',
      '/api/v1/sandbox/meetups.json',
    ]
    for (const path of paths) {
      const [a, b] = await Promise.all([fetch(`${embedded.baseUrl}${path}`), fetch(`${sanity.baseUrl}${path}`)])
      expect(b.status).toBe(200)
      expect(Buffer.from(await b.arrayBuffer()).equals(Buffer.from(await a.arrayBuffer())), path).toBe(true)
      expect(b.headers.get('etag')).toBe(a.headers.get('etag'))
    }
  })

  // 4xx, since @sanity/client retries a 5xx for seconds before it gives up.
  it.each([400, 'malformed'] as const)(
    'keeps serving the last good snapshot when Sanity answers %s during a rebuild',
    async (failure) => {
      const before = sanity.store.current()
      standIn.failWith(failure)
      await expect(sanity.store.refresh()).rejects.toThrow()
      standIn.failWith(undefined)
      expect(sanity.store.current()).toBe(before)
      const response = await fetch(`${sanity.baseUrl}/api/v1/all.json`, {headers: {'Accept-Encoding': 'identity'}})
      expect(response.status).toBe(200)
      expect(response.headers.get('etag')).toBe(before.representation('all.json')?.etag)
    },
  )
})

describe('the Sanity source fingerprint', () => {
  const environment = () => ({
    SANITY_PROJECT_ID: 'embedded',
    SANITY_DATASET: 'production',
    SANITY_API_HOST: standIn.apiHost,
    SANITY_TOKEN: 'read-token',
  })
  const fingerprint = () => createSource(loadConfig(environment()).content).fingerprint?.()

  it('stays the same while the published content does, and moves on a publish or a deletion', async () => {
    const original = documents
    try {
      const unchanged = await fingerprint()
      expect(unchanged).toBeDefined()
      documents = [
        ...original,
        {_id: 'drafts.an-unpublished-draft', _type: 'episode', _updatedAt: '2099-01-01T00:00:00Z'},
      ]
      expect(await fingerprint(), 'a draft is not published content').toBe(unchanged)

      const [first, ...rest] = original
      if (!first) throw new Error('the sample dataset is empty')
      documents = [{...first, _updatedAt: '2099-01-01T00:00:00Z'}, ...rest]
      const published = await fingerprint()
      expect(published).not.toBe(unchanged)

      const meetup = original.find((document) => document._type === 'meetup')
      documents = original.filter((document) => document !== meetup)
      expect(await fingerprint(), 'a deleted (or unpublished) meetup').not.toBe(unchanged)
    } finally {
      documents = original
    }
  })
})
