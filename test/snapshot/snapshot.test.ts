import {describe, expect, it} from 'vitest'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import type {Clock} from '../../server/clock.ts'
import {createDemandCaches} from '../../server/snapshot/demand-caches.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const ALL = {kind: 'all'} as const
const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})

function builderOver(documents: () => SanityDocument[], now: Clock) {
  return catalogSnapshotBuilder({source: createEmbeddedSource('inline', async () => documents()), config, clock: now})
}

describe('snapshot dates and validators', () => {
  it("dates a successor's site documents by its predecessor's only if those were built, without building them", async () => {
    let built = 0
    const settings = snapshotSettings({
      site: () => {
        built++
        return [{path: '/llms.txt', body: 'קטלוג', contentType: 'text/plain; charset=utf-8'}]
      },
    })
    const first = buildSnapshot(await catalogOf([voice('dana')]), settings, undefined, new Date('2026-01-01T00:00:00Z'))
    const second = buildSnapshot(
      await catalogOf([voice('dana'), episode('ep-1')]),
      settings,
      first,
      new Date('2026-02-01T00:00:00Z'),
    )
    expect(built, 'building a successor built nothing of its predecessor').toBe(0)
    const dated = second.site('/llms.txt')?.lastModified
    expect(built).toBe(1)
    // Unchanged bytes keep their date through successors that never built their own.
    const third = buildSnapshot(
      await catalogOf([voice('dana'), episode('ep-2')]),
      settings,
      second,
      new Date('2026-03-01T00:00:00Z'),
    )
    const fourth = buildSnapshot(
      await catalogOf([voice('dana'), episode('ep-3')]),
      settings,
      third,
      new Date('2026-04-01T00:00:00Z'),
    )
    expect(built).toBe(1)
    expect(fourth.site('/llms.txt')?.lastModified).toEqual(dated)
  })

  it('dates a fresh snapshot from the content, so restarts and replicas agree', async () => {
    const documents = [
      voice('dana', {_updatedAt: '2025-05-05T05:05:05.678Z'}),
      episode('ep-1', {_updatedAt: '2025-04-04T04:04:04Z'}),
    ]
    const first = await builderOver(
      () => documents,
      () => new Date('2026-01-01T00:00:00Z'),
    )(undefined, ALL)
    const second = await builderOver(
      () => documents,
      () => new Date('2027-01-01T00:00:00Z'),
    )(undefined, ALL)
    expect(first.representation('episodes/ep-1.json')?.lastModifiedHeader).toBe('Fri, 04 Apr 2025 04:04:04 GMT')
    expect(first.representation('all.json')?.lastModifiedHeader).toBe('Mon, 05 May 2025 05:05:05 GMT')
    for (const path of first.paths) expect(second.representation(path)).toEqual(first.representation(path))
  })

  it('moves ETag and Last-Modified only for representations whose bytes changed', async () => {
    let documents = [voice('dana'), episode('ep-1'), episode('ep-2', {publishedAt: '2025-01-01'})]
    let now = new Date('2026-01-01T00:00:00Z')
    const build = builderOver(
      () => documents,
      () => now,
    )
    const before: Snapshot = await build(undefined, ALL)
    documents = [voice('dana'), episode('ep-1', {title: 'כותרת חדשה'}), episode('ep-2', {publishedAt: '2025-01-01'})]
    now = new Date('2026-02-02T00:00:00Z')
    const after = await build(before, ALL)

    for (const path of ['episodes/ep-1.json', 'episodes.json', 'all.json']) {
      expect(after.representation(path)?.etag, path).not.toBe(before.representation(path)?.etag)
      expect(after.representation(path)?.lastModified, path).toEqual(now)
    }
    for (const path of ['episodes/ep-2.json', 'voices/dana.json', 'voices.json', 'meetups.json', 'index.json']) {
      expect(after.representation(path), path).toEqual(before.representation(path))
    }
    expect(after.version).not.toBe(before.version)
  })

  it('drops representations of deleted documents', async () => {
    let documents = [voice('dana'), episode('ep-1')]
    const build = builderOver(
      () => documents,
      () => new Date(),
    )
    const before = await build(undefined, ALL)
    documents = [voice('dana')]
    const after = await build(before, ALL)
    expect(before.representation('episodes/ep-1.json')).toBeDefined()
    expect(after.representation('episodes/ep-1.json')).toBeUndefined()
    expect(after.counts).toEqual({episodes: 0, meetups: 0, voices: 1})
  })

  it('compresses the index and first pages before it is served, items on first request, and an edit only what changed', async () => {
    let documents = [voice('dana'), episode('ep-1'), episode('ep-2')]
    const build = builderOver(
      () => documents,
      () => new Date(),
    )
    const before = await build(undefined, ALL)
    for (const path of ['index.json', 'episodes.json', 'voices.json']) {
      expect(before.representation(path)?.encoded('br'), path).toBeDefined()
      expect(before.representation(path)?.encoded('gzip'), path).toBeDefined()
    }
    const items = ['episodes/ep-1.json', 'episodes/ep-2.json', 'voices/dana.json']
    for (const path of items) expect(before.representation(path)?.encoded('br'), path).toBeUndefined()
    for (const path of items) await before.representation(path)?.encode('br')
    for (const path of items) expect(before.representation(path)?.encoded('br'), path).toBeDefined()

    documents = [voice('dana'), episode('ep-1', {title: 'כותרת חדשה'}), episode('ep-2')]
    const after = await build(before, ALL)
    expect(after.representation('episodes/ep-2.json')?.encoded('br')).toBe(
      before.representation('episodes/ep-2.json')?.encoded('br'),
    )
    expect(after.representation('episodes/ep-1.json')?.encoded('br')).toBeUndefined()
  })

  it("keeps items' compressed variants within the cache's bound, least recently used out first", async () => {
    const documents = Array.from({length: 60}, (_, index) =>
      episode(`ep-${index}`, {description: 'תיאור ארוך '.repeat(40 + index)}),
    )
    const caches = createDemandCaches({pageCacheBytes: 1024 * 1024, variantCacheBytes: 4096})
    const snapshot = await catalogSnapshotBuilder({
      source: createEmbeddedSource('inline', async () => documents),
      config,
      clock: () => new Date(),
      caches,
    })(undefined, ALL)
    const paths = snapshot.paths.filter((path) => path.startsWith('episodes/'))
    for (const path of paths) await snapshot.representation(path)?.encode('gzip')
    expect(caches.variants.calculatedSize).toBeLessThanOrEqual(4096)
    expect(caches.variants.size).toBeGreaterThan(0)
    const last = paths.at(-1) ?? ''
    expect(snapshot.representation(last)?.encoded('gzip')).toBeDefined()
    expect(snapshot.representation(paths[0] ?? '')?.encoded('gzip')).toBeUndefined()
    // A dropped variant is made again on the next request, with the same bytes and ETag.
    const again = await snapshot.representation(paths[0] ?? '')?.encode('gzip')
    expect(again?.etag).toBe(`${snapshot.representation(paths[0] ?? '')?.etag.slice(0, -1)}-gzip"`)
  })

  it('is immutable', async () => {
    const snapshot = await builderOver(
      () => [voice('dana')],
      () => new Date(),
    )(undefined, ALL)
    expect(Object.isFrozen(snapshot)).toBe(true)
    expect(Object.isFrozen(snapshot.representation('voices.json'))).toBe(true)
  })
})
