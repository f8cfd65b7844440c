// Integration: every response served from a snapshot names its version; surrogate keys only with a CDN configured.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
let plain: TestServer
beforeAll(async () => {
  server = await startTestServer({
    environment: {CDN_PURGE: 'fastly', FASTLY_API_TOKEN: 'token', FASTLY_SERVICE_ID: 'service1'},
    edge: {adapter: {provider: 'fastly', purge: async () => undefined}},
  })
  plain = await startTestServer()
})
afterAll(async () => {
  await server.close()
  await plain.close()
})

describe('Catalog-Version', () => {
  it('is on every snapshot-served response, through the fast path and Express alike, and on 304s', async () => {
    const version = server.store.current().version
    const item = await rawRequest(`${server.baseUrl}/api/v1/episodes/ep-3-schema-migrations.json`)
    const paths = [
      '/api/v1/episodes/ep-3-schema-migrations.json',
      '/api/v1/sandbox/voices.json',
      '/api/v1/episodes.json?limit=2',
      '/api/v1/all.json',
      '/api/v1/episodes.json?limit=%32', // percent-encoded: answered by Express
      '/llms.txt',
      '/llms.txt?utm_source=test', // a query: answered by Express
      '/sitemap-index.xml',
    ]
    for (const path of paths) {
      const response = await rawRequest(`${server.baseUrl}${path}`)
      expect(response.status, path).toBe(200)
      expect(response.headers['catalog-version'], path).toBe(version)
    }
    const notModified = await rawRequest(`${server.baseUrl}/api/v1/episodes/ep-3-schema-migrations.json`, {
      headers: {'if-none-match': String(item.headers.etag)},
    })
    expect(notModified.status).toBe(304)
    expect(notModified.headers['catalog-version']).toBe(version)
  })

  it('carries Fastly keys (Surrogate-Key only) when Fastly is configured, and no edge headers without a CDN', async () => {
    const withCdn = await rawRequest(`${server.baseUrl}/api/v1/sandbox/episodes/ep-3-schema-migrations.json`)
    expect(withCdn.headers['surrogate-key']).toBe('catalog episodes/ep-3-schema-migrations')
    expect(withCdn.headers.xkey).toBeUndefined()
    expect(withCdn.headers['cache-tag']).toBeUndefined()
    expect(
      (await rawRequest(`${server.baseUrl}/api/v1/episodes.json?limit=2&cursor=x`)).headers['surrogate-key'],
    ).toBeUndefined() // a problem is not cached
    const cursorPage = await rawRequest(`${server.baseUrl}/api/v1/episodes.json?limit=2`)
    expect(cursorPage.headers['surrogate-key']).toBe('catalog episodes')
    const withoutCdn = await rawRequest(`${plain.baseUrl}/api/v1/episodes/ep-3-schema-migrations.json`)
    for (const header of ['surrogate-key', 'xkey', 'cache-tag', 'cdn-cache-control', 'surrogate-control'])
      expect(withoutCdn.headers[header], header).toBeUndefined()
    expect(withoutCdn.headers['catalog-version']).toBe(plain.store.current().version)
  })
})
