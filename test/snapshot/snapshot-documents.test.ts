// One snapshot of a small catalog, built with buildSnapshot and settings the test controls (site
// documents, a feed, surrogate keys): its paths, the bulk document, list pages and their cache.
import {beforeAll, describe, expect, it} from 'vitest'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import {encodeCursor} from '../../server/api/v1/cursor.ts'
import {releaseInstant} from '../../catalog/v1/release-time.ts'
import {createDemandCaches} from '../../server/snapshot/demand-caches.ts'
import {buildSnapshot, type Snapshot, type SnapshotSettings} from '../../server/snapshot/snapshot.ts'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'
import {episode, meetup, voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const episodes = ['ep-1', 'ep-2', 'ep-3', 'ep-4', 'ep-5'].map((id, index) =>
  episode(id, {publishedAt: `2025-0${index + 1}-01`, _updatedAt: `2025-0${index + 1}-02T00:00:00Z`}),
)
const DOCUMENTS = [voice('dana'), voice('noa', {name: 'נועה לוי'}), meetup('m-1'), ...episodes]

let feedBuilds = 0
let siteBuilds = 0
function settings(feed = true): SnapshotSettings {
  return snapshotSettings({
    keying: createSurrogateKeying('varnish'),
    site: (snapshot) => {
      siteBuilds += 1
      return [
        {
          path: '/llms.txt',
          body: `${snapshot.counts.episodes} episodes`.repeat(50),
          contentType: 'text/plain; charset=utf-8',
          headers: {'X-Site': 'yes'},
        },
      ]
    },
    feed: {
      path: '/feed.xml',
      build: (snapshot) => {
        feedBuilds += 1
        return feed
          ? {path: '/feed.xml', body: `<rss>${snapshot.version}</rss>`, contentType: 'application/rss+xml'}
          : undefined
      },
    },
  })
}

let snapshot: Snapshot
let catalog: Catalog
beforeAll(async () => {
  catalog = await catalogOf(DOCUMENTS)
  snapshot = buildSnapshot(catalog, settings(), undefined, NOW)
})

const json = (body: {toString(encoding: BufferEncoding): string}) => JSON.parse(body.toString('utf8'))
// A cursor's key is an episode's release instant (a date is 00:00 Israel time).
const at = (date: string) => releaseInstant(date).toISOString()
const page = (limit: number, cursor: string | null, on: Snapshot = snapshot) => {
  const result = on.listPage('episodes', {limit, cursor})
  if (!result.ok) throw new Error(result.reason)
  return result.representation
}

describe('the documents of a snapshot', () => {
  it('are the index, the lists, the bulk document and every item', () => {
    expect(snapshot.paths).toEqual([
      'index.json',
      'episodes.json',
      'meetups.json',
      'voices.json',
      'all.json',
      'episodes/ep-5.json',
      'episodes/ep-4.json',
      'episodes/ep-3.json',
      'episodes/ep-2.json',
      'episodes/ep-1.json',
      'meetups/m-1.json',
      'voices/dana.json',
      'voices/noa.json',
    ])
    expect(snapshot.counts).toEqual({episodes: 5, meetups: 1, voices: 2})
    expect(Object.isFrozen(snapshot.counts)).toBe(true)
    expect(snapshot.representation('episodes/ep-1.json')).toBe(snapshot.item('episodes', 'ep-1'))
    for (const path of [
      'episodes/nope.json',
      'podcasts/ep-1.json',
      'episodes/.json',
      'episodes/ep-1',
      'nope.json',
      'index',
    ])
      expect(snapshot.representation(path), path).toBeUndefined()
    expect([...snapshot.slugsToCompare('voices', snapshot)]).toEqual([])
  })

  it('hold each item as {"data": item}', () => {
    expect(json(snapshot.item('episodes', 'ep-3')?.body ?? '')).toEqual({
      data: catalog.episodes.find((entry) => entry.value.slug === 'ep-3')?.value,
    })
  })

  it('include the bulk document: every item in list order and the counts, named by the version, built once', () => {
    const bulk = snapshot.representation('all.json')
    expect(bulk).toBe(snapshot.representation('all.json'))
    expect(json(bulk?.body ?? '')).toEqual({
      data: {
        episodes: ['ep-5', 'ep-4', 'ep-3', 'ep-2', 'ep-1'].map(
          (slug) => json(snapshot.item('episodes', slug)?.body ?? '').data,
        ),
        meetups: [json(snapshot.item('meetups', 'm-1')?.body ?? '').data],
        voices: ['dana', 'noa'].map((slug) => json(snapshot.item('voices', slug)?.body ?? '').data),
      },
      counts: {episodes: 5, meetups: 1, voices: 2},
    })
    expect(bulk?.etag).toBe(`"${snapshot.version}"`)
    expect(bulk?.lastModified).toEqual(snapshot.contentLastModified)
    expect(bulk?.headers.xkey).toBe('catalog all')
  })

  it('date a fresh snapshot by its newest content', () => {
    expect(snapshot.builtAt).toBe(NOW)
    expect(snapshot.contentLastModified).toEqual(new Date('2025-05-02T00:00:00Z'))
    expect(snapshot.item('episodes', 'ep-2')?.lastModified).toEqual(new Date('2025-02-02T00:00:00Z'))
    expect(snapshot.representation('index.json')?.lastModified).toEqual(new Date('2025-05-02T00:00:00Z'))
  })

  it('date an empty catalog at the epoch', async () => {
    const empty = buildSnapshot(await catalogOf([]), settings(), undefined, NOW)
    expect(empty.contentLastModified).toEqual(new Date(0))
    expect(json(empty.representation('all.json')?.body ?? '')).toEqual({
      data: {episodes: [], meetups: [], voices: []},
      counts: {episodes: 0, meetups: 0, voices: 0},
    })
    expect(json(empty.representation('episodes.json')?.body ?? '')).toEqual({
      data: [],
      pagination: {limit: 100, count: 0, total: 0, has_more: false, next_cursor: null, next: null},
    })
  })

  it('carry surrogate keys: each item its own, a list its collection, the index and site documents theirs', () => {
    expect(snapshot.item('episodes', 'ep-1')?.headers.xkey).toBe('catalog episodes/ep-1')
    expect(snapshot.representation('voices.json')?.headers.xkey).toBe('catalog voices')
    expect(snapshot.representation('index.json')?.headers.xkey).toBe('catalog index')
    expect(page(2, null).headers.xkey).toBe('catalog episodes')
    expect(snapshot.site('/llms.txt')?.headers).toMatchObject({'X-Site': 'yes', xkey: 'catalog site/llms.txt'})
  })

  it('carry no surrogate keys without a CDN', async () => {
    // A catalog of its own: items are memoised by their catalog entry.
    const plain = buildSnapshot(await catalogOf(DOCUMENTS), {...settings(), keying: undefined}, undefined, NOW)
    expect(plain.item('episodes', 'ep-1')?.headers).toEqual({})
    expect(plain.representation('all.json')?.headers).toEqual({})
    expect(plain.site('/llms.txt')?.headers).toEqual({'X-Site': 'yes'})
  })

  it('change a collection digest exactly when an item of that collection changes', async () => {
    const edited = buildSnapshot(
      await catalogOf(DOCUMENTS.map((document) => (document._id === 'ep-2' ? {...document, title: 'חדש'} : document))),
      settings(),
      snapshot,
      NOW,
    )
    expect(edited.collectionDigest('episodes')).not.toBe(snapshot.collectionDigest('episodes'))
    expect(edited.collectionDigest('voices')).toBe(snapshot.collectionDigest('voices'))
    expect(snapshot.collectionDigest('voices')).not.toBe(snapshot.collectionDigest('meetups'))
    expect(edited.version).not.toBe(snapshot.version)
    expect(edited.contentLastModified).toBe(NOW)
    expect(edited.item('episodes', 'ep-1'), 'an unchanged item is the same representation').toBe(
      snapshot.item('episodes', 'ep-1'),
    )
  })
})

describe('list pages', () => {
  it('give a page of `limit` items from the cursor on, with the next cursor and link', () => {
    const first = json(page(2, null).body)
    expect(first.data.map((item: {slug: string}) => item.slug)).toEqual(['ep-5', 'ep-4'])
    const cursor = encodeCursor([at('2025-04-01'), 'ep-4'])
    expect(first.pagination).toEqual({
      limit: 2,
      count: 2,
      total: 5,
      has_more: true,
      next_cursor: cursor,
      next: `http://api.test/api/v1/episodes.json?limit=2&cursor=${cursor}`,
    })
    const last = json(page(2, encodeCursor([at('2025-02-01'), 'ep-2'])).body)
    expect(last.data.map((item: {slug: string}) => item.slug)).toEqual(['ep-1'])
    expect(last.pagination).toEqual({limit: 2, count: 1, total: 5, has_more: false, next_cursor: null, next: null})
  })

  it('leave the default limit out of the next link', () => {
    const many = buildSnapshot(catalog, settings(), undefined, NOW)
    const body = json(page(100, encodeCursor([at('2025-05-01'), 'ep-5']), many).body)
    expect(body.pagination).toMatchObject({limit: 100, count: 4, has_more: false, next: null})
    const cursor = encodeCursor([at('2025-05-01'), 'ep-5'])
    expect(json(page(1, null, many).body).pagination.next).toBe(
      `http://api.test/api/v1/episodes.json?limit=1&cursor=${cursor}`,
    )
  })

  it('start after a cursor that falls between items, and are empty after the last', () => {
    expect(
      json(page(5, encodeCursor([at('2025-03-15'), 'x'])).body).data.map((item: {slug: string}) => item.slug),
    ).toEqual(['ep-3', 'ep-2', 'ep-1'])
    expect(
      json(page(5, encodeCursor([at('2025-03-01'), 'ep-3'])).body).data.map((item: {slug: string}) => item.slug),
    ).toEqual(['ep-2', 'ep-1'])
    expect(
      json(page(5, encodeCursor([at('2025-03-01'), 'ep-2'])).body).data.map((item: {slug: string}) => item.slug),
      'same date, the item with the later slug comes after',
    ).toEqual(['ep-3', 'ep-2', 'ep-1'])
    expect(json(page(5, encodeCursor([at('2000-01-01'), 'x'])).body).pagination).toMatchObject({
      count: 0,
      total: 5,
      has_more: false,
    })
    expect(json(page(5, encodeCursor([at('2099-01-01'), 'x'])).body).pagination).toMatchObject({count: 5})
  })

  it('answer the default page with the pre-built one, and refuse a cursor the API did not issue', () => {
    expect(page(100, null)).toBe(snapshot.representation('episodes.json'))
    expect(snapshot.listPage('episodes', {limit: 2, cursor: 'nope!'})).toEqual({
      ok: false,
      reason: 'cursor is not one this API issued; use the next_cursor of a list response',
    })
  })

  it('are built once per position: cursors that land on the same item share one page, kept in the shared cache', () => {
    const caches = createDemandCaches({pageCacheBytes: 1 << 20, variantCacheBytes: 1 << 20})
    const cached = buildSnapshot(catalog, {...settings(), caches}, undefined, NOW)
    const one = page(2, encodeCursor([at('2025-04-01'), 'ep-4']), cached)
    const other = page(2, encodeCursor([at('2025-03-15'), 'anything']), cached)
    expect(other).toBe(one)
    expect([...caches.pages.keys()]).toEqual([`${cached.version} episodes 2 2`])
    expect(page(3, encodeCursor([at('2025-04-01'), 'ep-4']), cached)).not.toBe(one)
    expect(caches.pages.size).toBe(2)
    expect(one.lastModified).toEqual(cached.contentLastModified)
    expect(one.body.buffer.byteLength, 'a page owns its bytes').toBe(one.body.length)
  })
})

describe('site documents and the feed', () => {
  it('are built on first use, once', () => {
    const before = {feedBuilds, siteBuilds}
    const fresh = buildSnapshot(catalog, settings(), undefined, NOW)
    expect({feedBuilds, siteBuilds}).toEqual(before)
    expect(fresh.site('/feed.xml')?.body.toString('utf8')).toBe(`<rss>${fresh.version}</rss>`)
    expect(fresh.site('/feed.xml')?.contentType).toBe('application/rss+xml')
    expect(feedBuilds).toBe(before.feedBuilds + 1)
    expect(siteBuilds, 'the feed is built on its own').toBe(before.siteBuilds)
    expect(fresh.site('/llms.txt')?.contentType).toBe('text/plain; charset=utf-8')
    expect(fresh.site('/nope')).toBeUndefined()
    expect(fresh.sitePaths).toEqual(['/llms.txt', '/feed.xml'])
    expect({feedBuilds, siteBuilds}).toEqual({feedBuilds: before.feedBuilds + 1, siteBuilds: before.siteBuilds + 1})
  })

  it('leave the feed out when there is none, building it once', () => {
    const before = feedBuilds
    const fresh = buildSnapshot(catalog, settings(false), undefined, NOW)
    expect(fresh.site('/feed.xml')).toBeUndefined()
    expect(fresh.sitePaths).toEqual(['/llms.txt'])
    expect(feedBuilds).toBe(before + 1)
  })

  it('are dated by the content on a fresh start, and keep their date through a successor when their bytes do not change', async () => {
    const first = buildSnapshot(catalog, settings(), undefined, NOW)
    expect(first.site('/llms.txt')?.lastModified).toEqual(first.contentLastModified)
    expect(first.site('/feed.xml')?.lastModified).toEqual(first.contentLastModified)
    const later = new Date('2026-07-01T00:00:00Z')
    const edited = buildSnapshot(
      await catalogOf(DOCUMENTS.map((document) => (document._id === 'ep-2' ? {...document, title: 'חדש'} : document))),
      settings(),
      first,
      later,
    )
    expect(edited.site('/llms.txt')?.lastModified, 'same bytes').toEqual(first.contentLastModified)
    expect(edited.site('/feed.xml')?.lastModified, 'new bytes (the version)').toEqual(later)
  })

  it('are compressed by warm, the index and first pages by precompress', async () => {
    const fresh = buildSnapshot(catalog, settings(), undefined, NOW)
    await fresh.precompress()
    for (const path of ['index.json', 'episodes.json', 'meetups.json', 'voices.json'])
      expect(fresh.representation(path)?.encoded('gzip'), path).not.toBeUndefined()
    expect(fresh.item('episodes', 'ep-1')?.encoded('gzip'), 'items on first request').toBeUndefined()
    expect(fresh.representation('all.json')?.encoded('gzip'), 'the bulk document on first request').toBeUndefined()
    expect(fresh.site('/llms.txt')?.encoded('br')).toBeUndefined()
    await fresh.warm()
    expect(fresh.site('/llms.txt')?.encoded('br')).not.toBeUndefined()
    expect(fresh.site('/feed.xml')?.encoded('br'), 'the feed on first request').toBeUndefined()
  })
})
