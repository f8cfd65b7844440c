// What a snapshot serves beside its items' bytes: the edge headers every document carries, items
// whose bytes a saved snapshot gave, an episode's chapters (or none), its paths, its version and
// dates across rebuilds, the service index, and the default page's next link.
import {beforeEach, describe, expect, it} from 'vitest'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import {buildSnapshot, type KnownItem, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const keying = createSurrogateKeying('varnish')
const chapter = (start: string, title: string) => ({_key: `k${start.replace(':', '')}`, _type: 'chapter', start, title})
const DOCUMENTS = [
  voice('dana'),
  episode('with-chapters', {chapters: [chapter('0:00', 'פתיחה'), chapter('12:30', 'הנושא')]}),
  episode('plain'),
]
const settings = () => snapshotSettings({keying})
const json = (body: {toString(encoding: BufferEncoding): string}) => JSON.parse(body.toString('utf8'))

let catalog: Catalog
let snapshot: Snapshot
// Built in each test rather than once: the build is what these tests exercise.
beforeEach(async () => {
  catalog = await catalogOf(DOCUMENTS)
  snapshot = buildSnapshot(catalog, settings(), undefined, NOW)
})

describe("a snapshot's documents", () => {
  it('carry the edge headers of their surrogate keys', () => {
    expect(snapshot.item('episodes', 'plain')?.headers).toEqual(keying.headersFor('episodes/plain', 'episodes'))
    expect(snapshot.representation('voices/dana.json')?.headers).toEqual(keying.headersFor('voices/dana', 'voices'))
    expect(snapshot.representation('episodes.json')?.headers).toEqual(keying.headersFor('episodes', 'episodes'))
    expect(snapshot.representation('index.json')?.headers).toEqual(keying.headersFor('index', 'index'))
    expect(snapshot.chapters('with-chapters')?.headers).toEqual(keying.headersFor('episodes/with-chapters', 'episodes'))
  })

  it("carry their collection's key when their own is too long for the CDN", async () => {
    const short = createSurrogateKeying('varnish', {maxKeyBytes: 12})
    const built = buildSnapshot(await catalogOf(DOCUMENTS), snapshotSettings({keying: short}), undefined, NOW)
    const listOnly = short.headersFor('episodes', 'episodes')
    expect(built.chapters('with-chapters')?.headers).toEqual(listOnly)
    expect(built.item('episodes', 'with-chapters')?.headers).toEqual(listOnly)
  })

  it('serve the chapters of an episode that has them, as chapters, and none for one without', () => {
    const chapters = snapshot.representation('episodes/with-chapters/chapters.json')
    expect(chapters?.contentType).toBe('application/json+chapters')
    expect(json(chapters?.body ?? '').chapters).toHaveLength(2)
    expect(snapshot.chapters('plain')).toBeUndefined()
    expect(snapshot.representation('episodes/plain/chapters.json')).toBeUndefined()
    expect(snapshot.paths).toContain('episodes/with-chapters/chapters.json')
    expect(snapshot.paths).not.toContain('episodes/plain/chapters.json')
  })

  it('serve the service index', () => {
    expect(json(snapshot.representation('index.json')?.body ?? '').data).toBeTypeOf('object')
  })

  it("serve a saved snapshot's item with its saved ETag, date and the edge headers", async () => {
    // A catalog of its own: what is made from an entry is kept by the entry's identity.
    const restart = await catalogOf(DOCUMENTS)
    const entry = restart.episodes.find((item) => item.value.slug === 'plain')
    if (!entry) throw new Error('no episode')
    const served = snapshot.item('episodes', 'plain')
    const saved: KnownItem = {
      body: Buffer.from(served?.body ?? ''),
      etag: '"saved-etag"',
      lastModified: new Date('2024-01-01T00:00:00Z'),
    }
    const restarted = buildSnapshot(restart, settings(), undefined, NOW, new Map([[entry, saved]]))
    const item = restarted.item('episodes', 'plain')
    expect(item?.etag).toBe('"saved-etag"')
    expect(item?.lastModified).toEqual(saved.lastModified)
    expect(item?.headers).toEqual(keying.headersFor('episodes/plain', 'episodes'))
  })

  it('serve no site documents when the settings have none', () => {
    expect(snapshot.sitePaths).toEqual([])
    expect(snapshot.site('/llms.txt')).toBeUndefined()
  })
})

describe("a snapshot's version and dates", () => {
  it('is a 32-character version, kept with the content date by a rebuild of the same content', async () => {
    expect(snapshot.version).toMatch(/^[\w-]{32}$/)
    const rebuilt = buildSnapshot(await catalogOf(DOCUMENTS), settings(), snapshot, new Date('2026-07-01T00:00:00Z'))
    expect(rebuilt.version).toBe(snapshot.version)
    expect(rebuilt.contentLastModified).toEqual(snapshot.contentLastModified)
    const changed = buildSnapshot(
      await catalogOf([...DOCUMENTS, voice('noa')]),
      settings(),
      snapshot,
      new Date('2026-07-01T00:00:00Z'),
    )
    expect(changed.version).not.toBe(snapshot.version)
    expect(changed.contentLastModified).toEqual(new Date('2026-07-01T00:00:00Z'))
  })
})

describe('the default page', () => {
  it('links its next page by cursor alone; another limit names its limit', async () => {
    const voices = Array.from({length: 101}, (_, index) => voice(`v-${String(index).padStart(3, '0')}`))
    const many = buildSnapshot(await catalogOf(voices), settings(), undefined, NOW)
    const next = json(many.representation('voices.json')?.body ?? '').pagination.next as string
    expect(new URL(next).searchParams.has('limit')).toBe(false)
    expect(new URL(next).searchParams.get('cursor')).toBeTruthy()
    const page = many.listPage('voices', {limit: 50, cursor: null})
    if (!page.ok) throw new Error(page.reason)
    expect(new URL(json(page.representation.body).pagination.next as string).searchParams.get('limit')).toBe('50')
  })
})
