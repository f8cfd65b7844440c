// `/api/v1/search.json` as the one resolver reads it (the fast path and Express alike): its
// parameters, its hits, and the answers kept in the page cache. No sockets.
import {describe, expect, it} from 'vitest'
import {MAX_SEARCH_LIMIT, searchEnvelope} from '../../server/api/v1/search.ts'
import {resolveCatalogPath, type Resolution} from '../../server/http/resolve.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {searchCatalog} from '../../server/snapshot/search.ts'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const BASE = 'http://api.test'
const config = loadConfig({PUBLIC_BASE_URL: BASE})
const snapshot = await catalogSnapshotBuilder({
  source: createEmbeddedFileSource(SAMPLE_DATASET),
  config,
  clock: () => new Date(),
  keying: createSurrogateKeying('varnish'),
})(undefined, {kind: 'all'})
const resolve = (query: string, path = '/search.json') => resolveCatalogPath(snapshot, BASE, path, query)
const q = (text: string) => new URLSearchParams({q: text}).toString()
const bodyOf = (resolution: Resolution) => {
  if (!resolution.found) throw new Error(`not found: ${resolution.detail}`)
  return searchEnvelope.parse(JSON.parse(resolution.representation.body.toString('utf8')))
}

describe('search.json', () => {
  it("ranks as MCP's search_catalog does, each hit with its type, slug, title and the lists' URLs", () => {
    for (const query of ['ריאקט', 'רולבק לדיפלוי', 'kubernetes', 'נגישות']) {
      const {data, pagination} = bodyOf(resolve(q(query)))
      const mcp = searchCatalog(snapshot, query, COLLECTION_NAMES, 10)
      if (!mcp.ready) throw new Error('the sample catalog is indexed at once')
      expect(data.length, query).toBeGreaterThan(0)
      expect(
        data.map((hit) => [hit.slug, hit.score]),
        query,
      ).toEqual(mcp.hits.map((hit) => [hit.slug, hit.score]))
      expect(pagination).toEqual({limit: 10, count: data.length, total: mcp.total})
      for (const hit of data) {
        const collection = `${hit.type}s`
        expect(hit.api_url).toBe(`${BASE}/api/v1/${collection}/${hit.slug}.json`)
        const item = snapshot.representation(`${collection}/${hit.slug}.json`)
        expect(JSON.parse(item?.body.toString('utf8') ?? '{}').data).toMatchObject({url: hit.url, api_url: hit.api_url})
      }
    }
  })

  it('answers the sandbox with the same representation, and a repeated query from the page cache', () => {
    const live = resolve(q('ריאקט'))
    expect(live.found && resolve(q('ריאקט'), '/sandbox/search.json')).toMatchObject({
      found: true,
      representation: live.found ? live.representation : undefined,
    })
    // The query is read trimmed, and other parameters are ignored, as the lists ignore them.
    const again = resolve(`${q('  ריאקט ')}&utm_source=x`)
    expect(again.found && live.found && again.representation === live.representation).toBe(true)
  })

  it('takes limit from 1 to 50', () => {
    expect(bodyOf(resolve(`${q('ב')}&limit=1`)).pagination.limit).toBe(1)
    expect(bodyOf(resolve(`${q('kafka')}&limit=${MAX_SEARCH_LIMIT}`)).pagination.limit).toBe(MAX_SEARCH_LIMIT)
    for (const limit of ['0', '51', 'abc', '-1', '1e3'])
      expect(resolve(`${q('kafka')}&limit=${limit}`), limit).toMatchObject({
        found: false,
        names: true,
        status: 400,
        detail: expect.stringMatching(/^limit must be a whole number from 1 to 50/),
      })
  })

  it('refuses a missing, empty, blank, repeated or too long q with a 400 naming q', () => {
    for (const query of ['', 'q=', 'q=%20%20', 'limit=3', 'q=a&q=b', q('א'.repeat(201)), q('x'.repeat(10 * 1024))])
      expect(resolve(query), query.slice(0, 20)).toMatchObject({
        found: false,
        names: true,
        status: 400,
        detail: expect.stringMatching(/^q /),
      })
    expect(resolve(q('א'.repeat(200))).found).toBe(true)
  })

  it('answers punctuation, another script or only function words with no hits', () => {
    for (const query of ['!!!', '…', 'привет мир', '你好世界', '🙂', 'של את']) {
      expect(bodyOf(resolve(q(query))), query).toEqual({data: [], pagination: {limit: 10, count: 0, total: 0}})
    }
  })

  it('carries the search surrogate key and the edge TTL', () => {
    const found = resolve(q('ריאקט'))
    expect(found.found && found.representation.headers).toMatchObject({xkey: 'catalog search'})
  })
})
