// The sitemaps across an edit: what changed is written again, and a file whose lines did not
// change keeps its bytes (neither joined nor hashed again at 100k items).
import {beforeAll, describe, expect, it} from 'vitest'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import {buildSitemaps} from '../../server/discovery/sitemaps.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const BASE = 'http://api.test'
const NOW = new Date('2026-06-01T00:00:00Z')
const settings = snapshotSettings({})
const documents = [
  voice('dana'),
  voice('noa', {name: 'נועה'}),
  episode('ep-1', {publishedAt: '2025-01-01'}),
  episode('ep-2', {publishedAt: '2025-02-01'}),
]
const EDITED_AT = '2026-05-20T08:30:00Z'

let before: Catalog
let edited: Catalog
let readWhole: Catalog
beforeAll(async () => {
  before = await catalogOf(documents)
  const after = await catalogOf(
    documents.map((document) =>
      document._id === 'ep-2' ? {...document, title: 'כותרת חדשה', _updatedAt: EDITED_AT} : document,
    ),
  )
  // A per-document build: every list but the edited episode's is the same array, every entry but its own the same object.
  readWhole = after
  const changed = after.episodes.find((entry) => entry.value.slug === 'ep-2')
  if (!changed) throw new Error('the fixture has no ep-2')
  edited = {...before, episodes: before.episodes.map((entry) => (entry.value.slug === 'ep-2' ? changed : entry))}
})

const sitemapsOf = (catalog: Catalog) =>
  new Map(
    buildSitemaps(buildSnapshot(catalog, settings, undefined, NOW), BASE).map((document) => [document.path, document]),
  )
const text = (document: {body: unknown} | undefined) => String(document?.body)

describe('the sitemaps after an edit', () => {
  it('write the edited item and its dates again, and keep the bytes of a file whose lines did not change', () => {
    const first = sitemapsOf(before)
    const second = sitemapsOf(edited)
    expect(text(second.get('/sitemaps/episodes.xml'))).toContain(
      `<loc>${BASE}/api/v1/episodes/ep-2.json</loc><lastmod>2026-05-20T08:30:00Z</lastmod>`,
    )
    expect(text(first.get('/sitemaps/episodes.xml'))).not.toContain('2026-05-20T08:30:00Z')
    expect(text(second.get('/sitemap-index.xml'))).toContain(
      `<loc>${BASE}/sitemaps/episodes.xml</loc><lastmod>2026-05-20T08:30:00Z</lastmod>`,
    )
    expect(text(second.get('/sitemaps/api.xml'))).toContain(
      `<loc>${BASE}/api/v1/all.json</loc><lastmod>2026-05-20T08:30:00Z</lastmod>`,
    )
    expect(second.get('/sitemaps/voices.xml')?.body).toBe(first.get('/sitemaps/voices.xml')?.body)
    expect(second.get('/sitemaps/voices.xml')?.etag).toBe(first.get('/sitemaps/voices.xml')?.etag)
    expect(second.get('/sitemaps/episodes.xml')?.etag).not.toBe(first.get('/sitemaps/episodes.xml')?.etag)
    // The same bytes as the sitemaps of the edited content read whole (every entry new).
    const whole = sitemapsOf(readWhole)
    expect([...whole.keys()]).toEqual([...second.keys()])
    for (const [path, document] of whole) expect(text(document), path).toBe(text(second.get(path)))
  })
})
