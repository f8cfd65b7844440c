// The fast path and the Express side of /api/v1 over one small snapshot, written to responses that
// record what they are given: which requests each answers, and how.
import {brotliDecompressSync} from 'node:zlib'
import {beforeAll, describe, expect, it, vi} from 'vitest'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {createCatalogHandler, readOnlyDetail, sendReadOnlyRefusal} from '../../server/http/api-router.ts'
import {catalogVersionHeader, createFastPath} from '../../server/http/fast-path.ts'
import {ResponseHeaders} from '../../server/http/response-headers.ts'
import {CACHE_CONTROL} from '../../server/http/representation-response.ts'
import {buildProblem} from '../../server/http/problem.ts'
import {withoutSandbox} from '../../server/http/resolve.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {createSnapshotStore, type SnapshotStore} from '../../server/snapshot/store.ts'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'
const config = loadConfig({PUBLIC_BASE_URL: BASE})
let snapshot: Snapshot
let store: SnapshotStore

beforeAll(async () => {
  const source = createEmbeddedSource('inline', async () => [
    voice('dana'),
    episode('ep-1'),
    episode('ep-2', {publishedAt: '2025-03-01'}),
  ])
  snapshot = await catalogSnapshotBuilder({source, config, clock: () => new Date('2026-01-01T00:00:00Z')})(undefined, {
    kind: 'all',
  })
  store = await createSnapshotStore(async () => ({snapshot}))
})

const json = (body: Buffer | undefined) => JSON.parse(String(body))

describe('the fast path', () => {
  const serve = (method: string, url: string) => {
    const {response, written} = fakeResponse()
    const headers = ['X-Request-Id', 'r1']
    const answered = createFastPath(store, BASE)(
      fakeRequest(method, url, {'accept-encoding': 'identity'}),
      response,
      new ResponseHeaders(headers),
    )
    return {answered, written, headers}
  }

  it('answers GET of an item, a list, the index and the bulk document from the snapshot, with the catalog version', () => {
    for (const [url, representation] of [
      ['/api/v1/episodes/ep-1.json', snapshot.item('episodes', 'ep-1')],
      ['/api/v1/episodes.json', snapshot.representation('episodes.json')],
      ['/api/v1/index.json', snapshot.representation('index.json')],
      ['/api/v1/all.json', snapshot.representation('all.json')],
      ['/api/v1/sandbox/voices/dana.json', snapshot.item('voices', 'dana')],
      ['/api/v1/voices/dana.json?utm_source=x', snapshot.item('voices', 'dana')],
    ] as const) {
      const {answered, written, headers} = serve('GET', url)
      expect(answered, url).toBe(true)
      expect(written.status, url).toBe(200)
      expect(written.headers.etag, url).toBe(representation?.etag)
      expect(written.headers['catalog-version'], url).toBe(snapshot.version)
      expect(written.headers['x-request-id'], url).toBe('r1')
      expect(headers, url).toEqual(['X-Request-Id', 'r1', 'Catalog-Version', snapshot.version])
    }
  })

  it('answers HEAD too, and a site document outside /api/v1', () => {
    const head = serve('HEAD', '/api/v1/episodes/ep-2.json')
    expect(head.answered).toBe(true)
    expect(head.written.body).toBeUndefined()
    const site = serve('GET', '/llms.txt')
    expect(site.answered).toBe(true)
    expect(site.written.headers.etag).toBe(snapshot.site('/llms.txt')?.etag)
  })

  it('reads a list page from the query', () => {
    const {answered, written} = serve('GET', '/api/v1/episodes.json?limit=1')
    expect(answered).toBe(true)
    expect(json(written.body).pagination).toMatchObject({limit: 1, count: 1, total: 2, has_more: true})
  })

  it('leaves everything else to the application: other methods, unknown paths, bad queries, percent-encoding, queries on site documents', () => {
    for (const [method, url] of [
      ['POST', '/api/v1/episodes.json'],
      ['DELETE', '/api/v1/index.json'],
      ['OPTIONS', '/api/v1/index.json'],
      ['GET', '/api/v1/episodes/nope.json'],
      ['GET', '/api/v1/episodes.json?limit=0'],
      ['GET', '/api/v1/episodes/ep%2D1.json'],
      ['GET', '/api/v1'],
      ['GET', '/llms.txt?x=1'],
      ['GET', '/nothing-here'],
    ]) {
      const {answered, written, headers} = serve(method ?? '', url ?? '')
      expect(answered, `${method} ${url}`).toBe(false)
      expect(written.status, `${method} ${url}`).toBeUndefined()
      expect(headers, `${method} ${url}`).toEqual(['X-Request-Id', 'r1'])
    }
  })

  it('names the snapshot that answered', () => {
    expect(catalogVersionHeader(snapshot)).toEqual(['Catalog-Version', snapshot.version])
  })
})

describe('the catalog handler', () => {
  const handle = (method: string, path: string, query = '') => {
    const {response, written} = fakeResponse()
    createCatalogHandler(store, BASE)(
      fakeRequest(method, `/api/v1${path}`, {'accept-encoding': 'identity'}),
      response,
      {path, query, instance: `/api/v1${path}`},
    )
    return written
  }

  it('serves what the snapshot has, with the catalog version', () => {
    const written = handle('GET', '/episodes/ep-1.json')
    expect(written.status).toBe(200)
    expect(written.headers['catalog-version']).toBe(snapshot.version)
    expect(written.body).toEqual(snapshot.item('episodes', 'ep-1')?.body)
    expect(handle('HEAD', '/sandbox/episodes.json').status).toBe(200)
  })

  it('refuses other methods with 405 on a path that names a resource, even a bad page of it', () => {
    for (const path of ['/episodes/ep-1.json', '/episodes.json', '/index.json']) {
      const written = handle('PUT', path)
      expect(written.status, path).toBe(405)
      expect(written.headers.allow, path).toBe('GET, HEAD')
      expect(json(written.body), path).toEqual(
        buildProblem(BASE, 405, 'The API is read-only: PUT is not supported. Retry as GET or HEAD.', `/api/v1${path}`),
      )
    }
    expect(handle('POST', '/episodes.json', 'limit=0').status).toBe(405)
  })

  it('answers an unknown path 404 whatever the method, and a bad page 400', () => {
    for (const method of ['GET', 'POST']) {
      const written = handle(method, '/nope.json')
      expect(written.status, method).toBe(404)
      expect(json(written.body).detail, method).toBe(
        'No such path under /api/v1. The service index http://api.test/api/v1/index.json lists every endpoint.',
      )
    }
    expect(handle('DELETE', '/episodes/missing.json').status).toBe(404)
    const missing = handle('GET', '/voices/missing.json')
    expect(json(missing.body).detail).toMatch(/^No speaker has the slug "missing"/)
    const badPage = handle('GET', '/episodes.json', 'limit=501')
    expect(badPage.status).toBe(400)
    expect(json(badPage.body)).toMatchObject({
      status: 400,
      instance: '/api/v1/episodes.json',
      detail: expect.stringMatching(/^limit must be a whole number from 1 to 500/),
    })
    expect(json(handle('GET', '/episodes.json', 'cursor=abc').body).detail).toMatch(/cursor is not one this API issued/)
  })

  it('refuses with the request method named, and an empty one when there is none', () => {
    expect(readOnlyDetail('PATCH')).toBe('The API is read-only: PATCH is not supported. Retry as GET or HEAD.')
    const {response, written} = fakeResponse()
    sendReadOnlyRefusal(fakeRequest(undefined, '/x'), response, BASE, '/x')
    expect(json(written.body).detail).toBe(readOnlyDetail(''))
  })
})

describe('the sandbox prefix', () => {
  it('is taken off only as a whole path segment', () => {
    expect(withoutSandbox('/sandbox/episodes.json')).toBe('/episodes.json')
    expect(withoutSandbox('/sandbox')).toBe('/sandbox')
    expect(withoutSandbox('/sandboxes/episodes.json')).toBe('/sandboxes/episodes.json')
    expect(withoutSandbox('/episodes.json')).toBe('/episodes.json')
  })
})

describe('a response that waits for its first compression', () => {
  // Two snapshots with the edge's headers (Varnish keys, CDN-Cache-Control), the second after an edit of ep-1.
  let before: Snapshot
  let after: Snapshot
  beforeAll(async () => {
    let documents = [voice('dana'), episode('ep-1'), episode('ep-2', {publishedAt: '2025-03-01'})]
    const build = catalogSnapshotBuilder({
      source: createEmbeddedSource('inline', async () => documents),
      config,
      clock: () => new Date('2026-01-01T00:00:00Z'),
      keying: createSurrogateKeying('varnish'),
    })
    before = await build(undefined, {kind: 'all'})
    documents = [voice('dana'), episode('ep-1', {title: 'פרק שנערך'}), episode('ep-2', {publishedAt: '2025-03-01'})]
    after = await build(before, {kind: 'all'})
    expect(after.version).not.toBe(before.version)
  })

  const requestWhile = async (url: string, swapDuringCompression: boolean) => {
    let current = before
    const {response, written} = fakeResponse()
    const answered = createFastPath({current: () => current}, BASE)(
      fakeRequest('GET', url, {'accept-encoding': 'br'}),
      response,
      new ResponseHeaders(['X-Request-Id', 'r1']),
    )
    expect(answered).toBe(true)
    expect(written.ended).toBe(false) // compressing on the threadpool
    if (swapDuringCompression) current = after
    await vi.waitFor(() => expect(written.ended).toBe(true))
    return written
  }

  it('tells the edge not to keep it when the snapshot was replaced meanwhile, and still answers from the one the client asked', async () => {
    const written = await requestWhile('/api/v1/episodes/ep-1.json', true)
    expect(written.status).toBe(200)
    expect(written.headers['cdn-cache-control']).toBe('no-store')
    expect(written.headers['surrogate-control']).toBe('no-store, max-age=0')
    expect(written.headers['catalog-version']).toBe(before.version)
    expect(written.headers.xkey).toBeDefined()
    expect(written.headers['cache-control']).toBe(CACHE_CONTROL)
    expect(
      brotliDecompressSync(written.body ?? Buffer.alloc(0)).equals(
        before.item('episodes', 'ep-1')?.body ?? Buffer.alloc(1),
      ),
    ).toBe(true)
  })

  it('keeps the edge TTL when the snapshot is still the one it was looked up in', async () => {
    const written = await requestWhile('/api/v1/episodes/ep-2.json', false)
    expect(written.headers['cdn-cache-control']).toBe('max-age=86400, stale-if-error=86400')
    expect(written.headers['surrogate-control']).toBe('max-age=86400, stale-if-error=86400')
  })
})
