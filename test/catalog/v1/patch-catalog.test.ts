// Per-document updates (patchCatalog) for every collection, one document mapped on its own
// (mapOneDocument, the Studio's API view), and the podcast settings in a mapped catalog.
import {describe, expect, it} from 'vitest'
import {mapCatalog, patchCatalog, type Catalog, type DocumentUpdate} from '../../../catalog/v1/catalog.ts'
import {mapOneDocument} from '../../../catalog/v1/document-mapping.ts'
import type {SanityDocument} from '../../../server/content/ndjson.ts'
import {CATALOG_QUERY, EPISODE_BY_ID_QUERY, MEETUP_BY_ID_QUERY, VOICE_BY_ID_QUERY} from '../../../catalog/queries.ts'
import {episode, guests, meetup, voice} from '../../fixtures/documents.ts'
import {catalogRowsOf, fetchFrom, settings} from '../../helpers/catalog-mapping.ts'

const QUERIES = {episodes: EPISODE_BY_ID_QUERY, meetups: MEETUP_BY_ID_QUERY, voices: VOICE_BY_ID_QUERY}

const BEFORE = [
  voice('dana'),
  voice('noa', {name: 'נועה'}),
  meetup('m-1', {talkDate: '2025-03-01', speakers: guests('dana')}),
  meetup('m-2', {talkDate: '2025-04-01'}),
  episode('ep-1', {publishedAt: '2025-01-01'}),
  episode('ep-3', {publishedAt: '2025-03-01', guests: guests('noa')}),
]

async function update(
  documents: SanityDocument[],
  collection: keyof typeof QUERIES,
  documentId: string,
): Promise<DocumentUpdate> {
  return {collection, documentId, row: await fetchFrom(documents, QUERIES[collection], {id: documentId})}
}
const slugs = (catalog: Catalog, collection: 'episodes' | 'meetups' | 'voices') =>
  catalog[collection].map((entry) => entry.value.slug)

describe('patchCatalog', () => {
  it('updates a meetup in place and leaves the other collections the same arrays', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    const after = BEFORE.map((document) => (document._id === 'm-1' ? {...document, title: 'כותרת חדשה'} : document))
    const patched = patchCatalog(previous, [await update(after, 'meetups', 'm-1')], settings)
    expect(patched.meetups.find((entry) => entry.documentId === 'm-1')?.value.title).toBe('כותרת חדשה')
    expect(
      patched.meetups.find((entry) => entry.documentId === 'm-1')?.value.speakers.map((speaker) => speaker.slug),
    ).toEqual(['dana'])
    expect(slugs(patched, 'meetups')).toEqual(['m-2', 'm-1'])
    expect(patched.episodes).toBe(previous.episodes)
    expect(patched.voices).toBe(previous.voices)
    expect(patched.podcast).toBe(previous.podcast)
  })

  it('removes a deleted document, and changes nothing for one it never served', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    const removed = patchCatalog(previous, [{collection: 'meetups', documentId: 'm-2', row: null}], settings)
    expect(slugs(removed, 'meetups')).toEqual(['m-1'])
    const gone = patchCatalog(previous, [{collection: 'episodes', documentId: 'ep-1', row: undefined}], settings)
    expect(slugs(gone, 'episodes')).toEqual(['ep-3'])
    const unknown = patchCatalog(previous, [{collection: 'episodes', documentId: 'never', row: null}], settings)
    expect(unknown.episodes).toBe(previous.episodes)
  })

  it('inserts a new document where the list order puts it', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    const after = [
      ...BEFORE,
      episode('ep-2', {publishedAt: '2025-02-01'}),
      episode('ep-4', {publishedAt: '2025-05-01'}),
      episode('intro', {publishedAt: '2024-01-01'}),
    ]
    let patched = previous
    for (const id of ['ep-2', 'ep-4', 'intro'])
      patched = patchCatalog(patched, [await update(after, 'episodes', id)], settings)
    expect(slugs(patched, 'episodes')).toEqual(['ep-4', 'ep-3', 'ep-2', 'ep-1', 'intro'])
    expect(patched.episodes).toEqual(mapCatalog(await catalogRowsOf(after), settings).episodes)
  })

  it('keeps the same arrays when a broken edit leaves the last valid version served, and reports it', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    const after = BEFORE.map((document) => (document._id === 'ep-1' ? {...document, title: ''} : document))
    const patched = patchCatalog(previous, [await update(after, 'episodes', 'ep-1')], settings)
    expect(patched.episodes).toBe(previous.episodes)
    expect(patched.problems).toEqual([
      {documentId: 'ep-1', collection: 'episodes', severity: 'kept', messages: [expect.stringMatching(/^title: /)]},
    ])
    const fixed = patchCatalog(patched, [await update(BEFORE, 'episodes', 'ep-1')], settings)
    expect(fixed.problems, 'a later update of the document clears its problem').toEqual([])
  })

  it('keeps the same arrays and entry for an update that changes nothing (a change applied twice)', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    const again = patchCatalog(previous, [await update(BEFORE, 'episodes', 'ep-3')], settings)
    expect(again.episodes).toBe(previous.episodes)
    const after = BEFORE.map((document) => (document._id === 'ep-3' ? {...document, title: 'כותרת חדשה'} : document))
    const edited = patchCatalog(previous, [await update(after, 'episodes', 'ep-3')], settings)
    expect(edited.episodes).not.toBe(previous.episodes)
    const twice = patchCatalog(edited, [await update(after, 'episodes', 'ep-3')], settings)
    expect(twice.episodes).toBe(edited.episodes)
  })

  it('links episodes to voices as the patched voices stand, and reads the served voices again only when they changed', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    // Noa is deleted, and ep-3 (her episode) is passed along, as the builder does for a voice.
    const after = BEFORE.filter((document) => document._id !== 'noa')
    const patched = patchCatalog(
      previous,
      [{collection: 'voices', documentId: 'noa', row: null}, await update(after, 'episodes', 'ep-3')],
      settings,
    )
    expect(slugs(patched, 'voices')).toEqual(['dana'])
    expect(patched.episodes.find((entry) => entry.documentId === 'ep-3')?.value.guests).toEqual([])
    // An episode edit alone links to the voices already served.
    const withGuest = BEFORE.map((document) =>
      document._id === 'ep-1' ? {...document, guests: guests('dana', 'noa')} : document,
    )
    const edited = patchCatalog(previous, [await update(withGuest, 'episodes', 'ep-1')], settings)
    expect(
      edited.episodes.find((entry) => entry.documentId === 'ep-1')?.value.guests.map((guest) => guest.slug),
    ).toEqual(['dana', 'noa'])
    expect(edited.voices).toBe(previous.voices)
  })

  it('applies a voice edit: its new fields, in Hebrew name order', async () => {
    const previous = mapCatalog(await catalogRowsOf(BEFORE), settings)
    const after = BEFORE.map((document) => (document._id === 'dana' ? {...document, name: 'תמר'} : document))
    const patched = patchCatalog(previous, [await update(after, 'voices', 'dana')], settings)
    expect(patched.voices.map((entry) => entry.value.name)).toEqual(['נועה', 'תמר'])
  })
})

describe('mapOneDocument', () => {
  const context = {...settings, servedVoices: new Set(['dana'])}

  it('maps a document of each collection as the catalog would serve it', async () => {
    const rows = await catalogRowsOf(BEFORE)
    const catalog = mapCatalog(rows, settings)
    for (const collection of ['episodes', 'meetups', 'voices'] as const) {
      const row = (rows as Record<string, {_id: string}[]>)[collection]?.[0]
      const mapped = mapOneDocument(collection, row, {...settings, servedVoices: new Set(['dana', 'noa'])})
      expect(mapped, collection).toEqual({
        ok: true,
        entry: catalog[collection].find((entry) => entry.documentId === row?._id),
        warnings: [],
      })
    }
  })

  it('warns of a guest it leaves out, and refuses a broken document with each issue worded', async () => {
    const rows = (await fetchFrom([voice('ghost'), episode('ep-9', {guests: guests('ghost')})], CATALOG_QUERY)) as {
      episodes: unknown[]
    }
    const [row] = rows.episodes
    expect(mapOneDocument('episodes', row, context)).toMatchObject({
      ok: true,
      warnings: ['guests: left out voice "ghost", which the catalog does not serve'],
    })
    const refused = mapOneDocument('voices', 'not a document', context)
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.messages).toEqual([refused.issues[0]?.message])
    expect(refused.messages[0]).not.toMatch(/^: /)
    const untitled = mapOneDocument('meetups', {_id: 'm', _updatedAt: '2025-01-01T00:00:00Z', slug: 'm'}, context)
    expect(!untitled.ok && untitled.messages).toContain('title: Invalid input: expected string, received undefined')
    const [undated] = (
      (await fetchFrom([episode('ep-10', {publishedAt: 'next tuesday'})], CATALOG_QUERY)) as {episodes: unknown[]}
    ).episodes
    const refusedRelease = mapOneDocument('episodes', undated, context)
    expect(!refusedRelease.ok && refusedRelease.messages).toContain(
      'published_at: fits none of its forms (Invalid ISO date; Invalid ISO datetime); got "next tuesday"',
    )
  })

  it('words objections with the error map it is given', () => {
    const mapped = mapOneDocument('voices', {_id: 'v'}, context, () => 'חסר')
    expect(!mapped.ok && mapped.messages).toContain('name: חסר')
  })
})

describe('the podcast settings in a catalog', () => {
  it('are null without a settings document, and mapped with one', () => {
    const rows = {episodes: [], meetups: [], voices: []}
    expect(mapCatalog(rows, settings).podcast).toBeNull()
    expect(mapCatalog({...rows, podcast: null}, settings).podcast).toBeNull()
    expect(mapCatalog({...rows, podcast: {_id: 'podcastSettings'}}, settings).podcast).toMatchObject({ok: false})
  })
})

describe('a catalog result of the wrong shape', () => {
  it('is refused whole', () => {
    expect(() => mapCatalog({episodes: []}, settings)).toThrow()
  })
})

describe('two new documents asking for one slug on the same date', () => {
  it('give it to the lower document id, whatever order the source lists them in', async () => {
    for (const order of [
      ['b-doc', 'a-doc'],
      ['a-doc', 'b-doc'],
    ]) {
      const documents = order.map((id) => episode('same', {_id: id, publishedAt: '2025-01-01'}))
      const catalog = mapCatalog(await catalogRowsOf(documents), settings)
      expect(
        catalog.episodes.map((entry) => entry.documentId),
        order.join(),
      ).toEqual(['a-doc'])
      expect(catalog.problems, order.join()).toEqual([
        {
          documentId: 'b-doc',
          collection: 'episodes',
          severity: 'rejected',
          messages: ['slug: "same" is already used by another document in episodes'],
        },
      ])
    }
  })
})
