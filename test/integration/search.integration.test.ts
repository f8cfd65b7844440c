// Integration: the real app on a loopback port (over the shipped sample dataset), asked for
// /api/v1/search.json with fetch and raw HTTP, and MCP's search_catalog through the official client
// SDK, to check the two rank alike. Bodies are parsed with the zod contract and validated against
// the OpenAPI document. A second server is configured for Fastly, for the surrogate key.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {searchEnvelope} from '../../server/api/v1/search.ts'
import {CACHE_CONTROL} from '../../server/http/representation-response.ts'
import {readContract, readProblem} from '../helpers/contract.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
let fastly: TestServer
let client: Client
const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init)
const searchPath = (query: string, prefix = '/api/v1') => `${prefix}/search.json?q=${encodeURIComponent(query)}`

beforeAll(async () => {
  server = await startTestServer()
  fastly = await startTestServer({
    environment: {CDN_PURGE: 'fastly', FASTLY_API_TOKEN: 'token', FASTLY_SERVICE_ID: 'service1'},
    edge: {adapter: {provider: 'fastly', purge: async () => undefined}},
  })
  client = new Client({name: 'search-tests', version: '1.0.0'}, {versionNegotiation: {mode: {pin: '2026-07-28'}}})
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
})
afterAll(async () => {
  await client.close()
  expect(server.loggedErrors).toEqual([])
  await server.close()
  await fastly.close()
})

const mcpResults = z.object({
  results: z.array(z.object({collection: z.string(), slug: z.string(), score: z.number()})),
  total: z.number(),
})
async function searchCatalog(query: string) {
  return mcpResults.parse((await client.callTool({name: 'search_catalog', arguments: {query}})).structuredContent)
}

describe('GET /api/v1/search.json', () => {
  it.each([
    ['איזה פרק מדבר על ריאקט?', 'ep-2-react-server-components'],
    ['איך עושים רולבק לדיפלוי?', 'ep-19-reversible-deploys'],
    ['מִיגְרַצְיוֹת', 'ep-3-schema-migrations'],
  ])('ranks %s as MCP search_catalog does: %s first', async (query, wanted) => {
    const response = await get(searchPath(query))
    expect(response.status).toBe(200)
    const {data, pagination} = await readContract(response, searchEnvelope)
    expect(data[0]).toMatchObject({type: 'episode', slug: wanted})
    expect(data[0]?.api_url).toBe(`http://api.test/api/v1/episodes/${wanted}.json`)
    const mcp = await searchCatalog(query)
    expect(data.map((hit) => [`${hit.type}s`, hit.slug, hit.score])).toEqual(
      mcp.results.map((hit) => [hit.collection, hit.slug, hit.score]),
    )
    expect(pagination).toEqual({limit: 10, count: data.length, total: mcp.total})
  })

  it('is cacheable per query: the lists’ Cache-Control, an ETag, and 304 for If-None-Match', async () => {
    const path = searchPath('kafka')
    const first = await rawRequest(`${server.baseUrl}${path}`)
    expect(first.status).toBe(200)
    expect(first.headers['cache-control']).toBe(CACHE_CONTROL)
    const etag = String(first.headers.etag)
    expect(etag).toMatch(/^"[\w-]+"$/)
    const again = await rawRequest(`${server.baseUrl}${path}`, {headers: {'if-none-match': etag}})
    expect(again.status).toBe(304)
    expect(again.body.length).toBe(0)
    // Another query is another document.
    const other = await rawRequest(`${server.baseUrl}${searchPath('kafka')}&limit=1`, {
      headers: {'if-none-match': etag},
    })
    expect(other.status).toBe(200)
    expect(other.headers.etag).not.toBe(etag)
  })

  it('serves the sandbox byte for byte, Hebrew through Express and ASCII through the fast path', async () => {
    for (const query of ['ריאקט', 'kafka']) {
      const live = await rawRequest(`${server.baseUrl}${searchPath(query)}`)
      const sandbox = await rawRequest(`${server.baseUrl}${searchPath(query, '/api/v1/sandbox')}`)
      expect(sandbox.status, query).toBe(200)
      expect(sandbox.body.equals(live.body), query).toBe(true)
      expect(sandbox.headers.etag, query).toBe(live.headers.etag)
    }
  })

  it('answers a missing, empty or too long q with a 400 problem naming q', async () => {
    for (const path of [
      '/api/v1/search.json',
      '/api/v1/search.json?q=',
      '/api/v1/search.json?q=%20',
      searchPath('א'.repeat(201)),
      '/api/v1/sandbox/search.json?limit=5',
    ]) {
      const problem = await readProblem(await get(path), 400)
      expect(problem.detail, path).toMatch(/^q (is required|must be at most 200 characters)/)
    }
    expect((await readProblem(await get(`${searchPath('kafka')}&limit=51`), 400)).detail).toMatch(/^limit must be/)
    // 10 KB in the URL is refused before any path is read: the server's own URL bound, as a problem.
    const long = await get(searchPath('x'.repeat(10 * 1024)))
    expect(long.status).toBe(414)
    expect(long.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    await long.body?.cancel()
    // A path that names a resource refuses other methods.
    expect((await get(searchPath('kafka'), {method: 'POST'})).status).toBe(405)
  })

  it.each(['!!!', 'привет мир', '你好世界', 'של את'])('answers %s with no hits, not an error', async (query) => {
    const response = await get(searchPath(query))
    expect(response.status).toBe(200)
    expect(await readContract(response, searchEnvelope)).toEqual({
      data: [],
      pagination: {limit: 10, count: 0, total: 0},
    })
  })

  it('ignores parameters it does not read, as the lists do', async () => {
    const plain = await rawRequest(`${server.baseUrl}${searchPath('kafka')}`)
    const busted = await rawRequest(`${server.baseUrl}${searchPath('kafka')}&utm_source=x&cursor=y`)
    expect(busted.status).toBe(200)
    expect(busted.headers.etag).toBe(plain.headers.etag)
  })

  it('carries the search surrogate key and the edge TTL when a CDN is configured', async () => {
    const response = await rawRequest(`${fastly.baseUrl}${searchPath('ריאקט')}`)
    expect(response.status).toBe(200)
    expect(response.headers['surrogate-key']).toBe('catalog search')
    expect(response.headers['surrogate-control']).toMatch(/^max-age=\d+/)
  })
})
