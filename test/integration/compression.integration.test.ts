// Pre-compressed variants over real HTTP: the bytes on the wire, their ETags, Vary and 304s.
import {brotliDecompressSync, gunzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(`${server.baseUrl}${path}`, {method, headers})

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  expect(server.loggedErrors).toEqual([])
  await server.close()
})

const decoders = {br: brotliDecompressSync, gzip: gunzipSync}
const paths = [
  '/api/v1/all.json',
  '/api/v1/episodes.json',
  '/api/v1/episodes/ep-3-schema-migrations.json',
  '/api/v1/sandbox/voices.json',
  '/api/openapi.json',
  '/docs',
  '/sitemap-index.xml',
]

describe.each(paths)('%s', (path) => {
  it.each(['br', 'gzip'] as const)(
    'is served in %s: the same bytes once decoded, a distinct ETag, Vary',
    async (coding) => {
      const identity = await get(path, {'Accept-Encoding': 'identity'})
      const encoded = await get(path, {'Accept-Encoding': coding})
      expect(identity.headers['content-encoding']).toBeUndefined()
      expect(encoded.headers['content-encoding']).toBe(coding)
      expect(encoded.body.length).toBeLessThan(identity.body.length)
      expect(Number(encoded.headers['content-length'])).toBe(encoded.body.length)
      expect(decoders[coding](encoded.body).equals(identity.body)).toBe(true)
      for (const response of [identity, encoded]) expect(response.headers.vary).toBe('Accept-Encoding')
      expect(encoded.headers.etag).toBe(`${String(identity.headers.etag).slice(0, -1)}-${coding}"`)
      expect(encoded.headers['last-modified']).toBe(identity.headers['last-modified'])
      expect(encoded.headers['content-type']).toBe(identity.headers['content-type'])
    },
  )
})

describe('conditional requests per variant', () => {
  const path = '/api/v1/episodes/ep-3-schema-migrations.json'

  it("answers 304 to the ETag of the variant it would send, and 200 to another variant's ETag", async () => {
    const brotli = await get(path, {'Accept-Encoding': 'br'})
    const identity = await get(path)
    const notModified = await get(path, {'Accept-Encoding': 'br', 'If-None-Match': String(brotli.headers.etag)})
    expect(notModified.status).toBe(304)
    expect(notModified.body.length).toBe(0)
    expect(notModified.headers.etag).toBe(brotli.headers.etag)
    expect(notModified.headers.vary).toBe('Accept-Encoding')
    // RFC 9110 13.1.2: the condition compares with the selected representation only.
    const otherVariant = await get(path, {'Accept-Encoding': 'br', 'If-None-Match': String(identity.headers.etag)})
    expect(otherVariant.status).toBe(200)
    expect(otherVariant.headers['content-encoding']).toBe('br')
  })

  it('answers HEAD with the headers of the encoded GET and no body', async () => {
    const getResponse = await get(path, {'Accept-Encoding': 'gzip'})
    const head = await get(path, {'Accept-Encoding': 'gzip'}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
    for (const name of ['content-length', 'content-encoding', 'etag', 'vary', 'content-type'])
      expect(head.headers[name], name).toBe(getResponse.headers[name])
  })

  it('follows q-values: gzip preferred over br when the client says so', async () => {
    const response = await get(path, {'Accept-Encoding': 'br;q=0.5, gzip'})
    expect(response.headers['content-encoding']).toBe('gzip')
  })
})

describe('pages built on request', () => {
  it('compresses a non-default page once and serves the same variant again', async () => {
    const path = '/api/v1/episodes.json?limit=7'
    const first = await get(path, {'Accept-Encoding': 'br'})
    const second = await get(path, {'Accept-Encoding': 'br'})
    expect(first.headers['content-encoding']).toBe('br')
    expect(second.headers.etag).toBe(first.headers.etag)
    expect(second.body.equals(first.body)).toBe(true)
    const page = JSON.parse(brotliDecompressSync(first.body).toString('utf8')) as {pagination: {count: number}}
    expect(page.pagination.count).toBe(7)
  })
})

describe('errors', () => {
  it('are never compressed or given variant ETags', async () => {
    const response = await get('/api/v1/episodes/no-such-episode.json', {'Accept-Encoding': 'br, gzip'})
    expect(response.status).toBe(404)
    expect(response.headers['content-encoding']).toBeUndefined()
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(JSON.parse(response.body.toString('utf8'))).toMatchObject({status: 404})
  })
})
