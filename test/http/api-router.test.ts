// The Express side of /api/v1 (createCatalogHandler) with the sample catalog: a response that
// waited for its first compression tells the edge not to keep it when the snapshot changed meanwhile.
import {brotliDecompressSync} from 'node:zlib'
import {beforeAll, describe, expect, it, vi} from 'vitest'
import {createCatalogHandler} from '../../server/http/api-router.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'
const build = catalogSnapshotBuilder({
  source: createEmbeddedFileSource(SAMPLE_DATASET),
  config: loadConfig({PUBLIC_BASE_URL: BASE}),
  clock: () => new Date('2026-01-01T00:00:00Z'),
})

describe('an item that waited for its first compression', () => {
  // Two real snapshots of the sample: the one an item is looked up in, and the one that replaces it.
  let snapshot: Snapshot
  let replacement: Snapshot
  beforeAll(async () => {
    snapshot = await build(undefined, {kind: 'all'})
    replacement = await build(snapshot, {kind: 'all'})
  }, 120_000)

  const answer = async (swap: boolean) => {
    const [first, second] = snapshot.catalog.episodes
    const slug = (swap ? first : second)?.value.slug ?? ''
    let current: Snapshot = snapshot
    const store = {current: () => current}
    const {response, written} = fakeResponse()
    createCatalogHandler(store, BASE)(
      fakeRequest('GET', `/episodes/${slug}.json`, {'accept-encoding': 'br'}),
      response,
      {
        path: `/episodes/${slug}.json`,
        query: '',
        instance: `/api/v1/episodes/${slug}.json`,
      },
    )
    expect(written.ended).toBe(false) // compressing
    if (swap) current = replacement
    await vi.waitFor(() => expect(written.ended).toBe(true), {timeout: 30_000})
    const item = snapshot.item('episodes', slug)
    expect(brotliDecompressSync(written.body ?? Buffer.alloc(0)).equals(item?.body ?? Buffer.alloc(1))).toBe(true)
    return written
  }

  it('tells the edge not to keep it when the snapshot was replaced meanwhile', {timeout: 60_000}, async () => {
    const written = await answer(true)
    expect(written.status).toBe(200)
    expect(written.headers['cdn-cache-control']).toBe('no-store')
    expect(written.headers['surrogate-control']).toBe('no-store, max-age=0')
  })

  it('keeps the edge TTL while the snapshot is the one it was looked up in', {timeout: 60_000}, async () => {
    const written = await answer(false)
    expect(written.status).toBe(200)
    expect(written.headers['cdn-cache-control']).not.toBe('no-store')
  })
})

describe('another method on a path that names a resource', () => {
  it('is refused before anything is resolved: a POST to search.json starts no index build', async () => {
    const snapshot = await build(undefined, {kind: 'all'})
    const resolved: string[] = []
    // The real snapshot, with what a resolution would build watched.
    const watched: Snapshot = {
      ...snapshot,
      searchPage: (request) => (resolved.push('search'), snapshot.searchPage(request)),
      changesPage: (request) => (resolved.push('changes'), snapshot.changesPage(request)),
      listPage: (collection, request) => (resolved.push('list'), snapshot.listPage(collection, request)),
    }
    const handle = createCatalogHandler({current: () => watched}, BASE)
    for (const [path, query] of [
      ['/search.json', 'q=%D7%A7%D7%90%D7%A9'],
      ['/sandbox/search.json', 'q=x'],
      ['/changes.json', ''],
      ['/episodes.json', 'limit=7'],
    ] as const) {
      const {response, written} = fakeResponse()
      handle(fakeRequest('POST', `${path}?${query}`, {}), response, {path, query, instance: `/api/v1${path}`})
      expect(written.status, path).toBe(405)
      expect(written.headers.allow, path).toBe('GET, HEAD')
    }
    expect(resolved).toEqual([])
    const {response, written} = fakeResponse()
    handle(fakeRequest('GET', '/search.json?q=x', {}), response, {path: '/search.json', query: 'q=x', instance: ''})
    expect(written.status).toBe(200)
    expect(resolved, 'a GET still resolves').toEqual(['search'])
  })
})
