// The typed client's HTTP (client/src/http.ts, etag-cache.ts, problem.ts) through its fetch seam, no
// sockets: ETag revalidation reusing the kept body on a 304, the cache's bound, and problems thrown
// as one error class.
import {describe, expect, it} from 'vitest'
import {CatalogProblem, createCatalogClient} from '../../client/src/index.ts'
import {jsonAnswer, problemAnswer, scriptedFetch} from '../helpers/scripted-fetch.ts'

const BASE = 'http://catalog.test/api/v1'
const episode = (title: string) => ({data: {slug: 'ep-1', title}})

describe('ETag revalidation', () => {
  it('asks again with If-None-Match and reuses the kept body on a 304', async () => {
    const server = scriptedFetch((request) =>
      request.headers['if-none-match'] === '"v1"'
        ? new Response(null, {status: 304, headers: {etag: '"v1"'}})
        : jsonAnswer(episode('first'), {etag: '"v1"'}),
    )
    const client = createCatalogClient({baseUrl: BASE, fetch: server.fetch})
    const first = await client.getEpisode('ep-1')
    const again = await client.getEpisode('ep-1')
    expect(server.requests.map(({url, headers}) => [url, headers['if-none-match']])).toEqual([
      [`${BASE}/episodes/ep-1.json`, undefined],
      [`${BASE}/episodes/ep-1.json`, '"v1"'],
    ])
    expect(again).toEqual({slug: 'ep-1', title: 'first'})
    // Each answer is its own copy: a caller changing one does not change what the next one gets.
    expect(again).not.toBe(first)
  })

  it('keeps the newer answer when the ETag moved', async () => {
    const bodies = [jsonAnswer(episode('first'), {etag: '"v1"'}), jsonAnswer(episode('second'), {etag: '"v2"'})]
    const server = scriptedFetch(
      (request) =>
        bodies.shift() ?? new Response(null, {status: 304, headers: {etag: request.headers['if-none-match'] ?? ''}}),
    )
    const client = createCatalogClient({baseUrl: BASE, fetch: server.fetch})
    await client.getEpisode('ep-1')
    expect(await client.getEpisode('ep-1')).toEqual({slug: 'ep-1', title: 'second'})
    expect(await client.getEpisode('ep-1')).toEqual({slug: 'ep-1', title: 'second'})
    expect(server.requests.map(({headers}) => headers['if-none-match'])).toEqual([undefined, '"v1"', '"v2"'])
  })

  it('keeps at most cacheEntries answers, the least recently used out first', async () => {
    const server = scriptedFetch((request) =>
      request.headers['if-none-match']
        ? new Response(null, {status: 304})
        : jsonAnswer({data: {slug: request.url}}, {etag: `"${request.url}"`}),
    )
    const client = createCatalogClient({baseUrl: BASE, fetch: server.fetch, cacheEntries: 2})
    for (const slug of ['a', 'b', 'a', 'c', 'a', 'b']) await client.getVoice(slug)
    const revalidated = server.requests.map(
      ({url, headers}) =>
        `${url.slice(`${BASE}/voices/`.length)} ${headers['if-none-match'] ? 'revalidated' : 'fetched'}`,
    )
    // a is used again before c comes, so b is the one c pushes out (oldest in would have been a).
    expect(revalidated).toEqual([
      'a.json fetched',
      'b.json fetched',
      'a.json revalidated',
      'c.json fetched',
      'a.json revalidated',
      'b.json fetched',
    ])
  })
})

describe('problems', () => {
  it('throws a problem+json answer as a CatalogProblem carrying its document', async () => {
    const server = scriptedFetch(() => problemAnswer(404, 'Not Found', 'No episode has the slug nope.'))
    const client = createCatalogClient({baseUrl: BASE, fetch: server.fetch})
    const thrown = await client.getEpisode('nope').catch((error: unknown) => error)
    expect(thrown).toBeInstanceOf(CatalogProblem)
    expect(thrown).toBeInstanceOf(Error)
    expect(thrown).toMatchObject({
      name: 'CatalogProblem',
      status: 404,
      title: 'Not Found',
      detail: 'No episode has the slug nope.',
      type: 'http://api.test/docs#errors-404',
      url: `${BASE}/episodes/nope.json`,
      problem: {status: 404, title: 'Not Found', detail: 'No episode has the slug nope.'},
    })
    expect(String(thrown)).toContain('404 Not Found: No episode has the slug nope.')
  })

  it("gives an answer without a problem document RFC 9457's about:blank, with its status", async () => {
    const server = scriptedFetch(
      () =>
        new Response('<html>upstream down</html>', {
          status: 502,
          statusText: 'Bad Gateway',
          headers: {'content-type': 'text/html'},
        }),
    )
    const client = createCatalogClient({baseUrl: BASE, fetch: server.fetch})
    const thrown = await client.getEverything().catch((error: unknown) => error)
    expect(thrown).toBeInstanceOf(CatalogProblem)
    expect(thrown).toMatchObject({problem: {type: 'about:blank', title: 'Bad Gateway', status: 502}})
  })

  it("lets a request that got no answer reject with fetch's own error", async () => {
    const client = createCatalogClient({
      baseUrl: BASE,
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    })
    await expect(client.getServiceIndex()).rejects.toThrow(TypeError)
  })
})
