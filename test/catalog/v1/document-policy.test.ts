// One document policy for full and per-document builds: for each scenario, the catalog a webhook's
// per-document build makes must equal the one a full re-read makes from the same previous catalog.
import {describe, expect, it} from 'vitest'
import {mapCatalog, patchCatalog, type Catalog} from '../../../catalog/v1/catalog.ts'
import type {SanityDocument} from '../../../server/content/ndjson.ts'
import {EPISODE_BY_ID_QUERY} from '../../../catalog/queries.ts'
import {episode} from '../../fixtures/documents.ts'
import {catalogRowsOf, fetchFrom, settings} from '../../helpers/catalog-mapping.ts'

const served = (catalog: Catalog) =>
  catalog.episodes.map((entry) => `${entry.documentId}:${entry.value.slug}:${entry.value.title}`)
const problems = (catalog: Catalog) => [...catalog.problems].sort((a, b) => a.documentId.localeCompare(b.documentId))

/** The catalog before, then the same edit applied by a full re-read and by a per-document build. */
async function bothWays(before: SanityDocument[], after: SanityDocument[], editedId: string) {
  const previous = mapCatalog(await catalogRowsOf(before), settings)
  const full = mapCatalog(await catalogRowsOf(after), settings, previous)
  const row = await fetchFrom(after, EPISODE_BY_ID_QUERY, {id: editedId})
  const incremental = patchCatalog(previous, [{collection: 'episodes', documentId: editedId, row}], settings)
  expect(served(incremental)).toEqual(served(full))
  expect(problems(incremental)).toEqual(problems(full))
  return full
}

const holder = episode('taken', {_id: 'holder', publishedAt: '2024-01-01', title: 'המחזיק'})
const other = episode('other', {_id: 'other', publishedAt: '2025-06-01', title: 'אחר'})

describe('the document policy, alike in full and per-document builds', () => {
  it('keeps a slug with the document that holds it: a newer document asking for it keeps its last valid version', async () => {
    const catalog = await bothWays(
      [holder, other],
      [holder, {...other, slug: {_type: 'slug', current: 'taken'}, title: 'אחר, ערוך'}],
      'other',
    )
    expect(served(catalog)).toEqual(['other:other:אחר', 'holder:taken:המחזיק'])
    expect(problems(catalog)).toEqual([
      {
        documentId: 'other',
        collection: 'episodes',
        severity: 'kept',
        messages: ['slug: "taken" is already used by another document in episodes'],
      },
    ])
  })

  it('rejects a new document that asks for a held slug', async () => {
    const newcomer = episode('taken', {_id: 'newcomer', publishedAt: '2026-01-01'})
    const catalog = await bothWays([holder], [holder, newcomer], 'newcomer')
    expect(served(catalog)).toEqual(['holder:taken:המחזיק'])
    expect(problems(catalog)).toMatchObject([{documentId: 'newcomer', severity: 'rejected'}])
  })

  it('keeps the last valid version of a document an edit breaks', async () => {
    const catalog = await bothWays([holder, other], [holder, {...other, title: undefined}], 'other')
    expect(served(catalog)).toContain('other:other:אחר')
    expect(problems(catalog)).toMatchObject([
      {documentId: 'other', severity: 'kept', messages: ['title: Invalid input: expected string, received null']},
    ])
  })

  it('lets a renamed document take a slug that was freed, and serves a plain edit', async () => {
    const catalog = await bothWays(
      [holder, other],
      [{...holder, slug: {_type: 'slug', current: 'renamed'}}, other],
      'holder',
    )
    expect(served(catalog)).toEqual(['other:other:אחר', 'holder:renamed:המחזיק'])
    expect(catalog.problems).toEqual([])
  })

  it('keeps a kept version through later full re-reads while the document stays broken', async () => {
    const broken = [holder, {...other, title: undefined}]
    const first = mapCatalog(await catalogRowsOf([holder, other]), settings)
    const second = mapCatalog(await catalogRowsOf(broken), settings, first)
    const third = mapCatalog(await catalogRowsOf(broken), settings, second)
    expect(served(third)).toEqual(served(first))
    expect(problems(third)).toMatchObject([{documentId: 'other', severity: 'kept'}])
  })

  describe('duplicate slugs', () => {
    it('on a fresh start, gives a slug to the first document in list order (newest first, then id) and refuses the others', async () => {
      const older = episode('same', {_id: 'older', publishedAt: '2024-01-01', title: 'ישן'})
      const newer = episode('same', {_id: 'newer', publishedAt: '2025-01-01', title: 'חדש'})
      const twinB = episode('twin', {_id: 'twin-b', publishedAt: '2025-01-01', title: 'ב'})
      const twinA = episode('twin', {_id: 'twin-a', publishedAt: '2025-01-01', title: 'א'})
      for (const documents of [
        [older, newer, twinB, twinA],
        [twinA, twinB, newer, older],
      ]) {
        const catalog = mapCatalog(await catalogRowsOf(documents), settings)
        expect(served(catalog)).toEqual(['newer:same:חדש', 'twin-a:twin:א'])
        expect(problems(catalog)).toEqual([
          {
            documentId: 'older',
            collection: 'episodes',
            severity: 'rejected',
            messages: ['slug: "same" is already used by another document in episodes'],
          },
          {
            documentId: 'twin-b',
            collection: 'episodes',
            severity: 'rejected',
            messages: ['slug: "twin" is already used by another document in episodes'],
          },
        ])
      }
    })

    it('keeps the holder when a newer document takes its slug and the holder is then edited', async () => {
      const newcomer = episode('taken', {_id: 'newcomer', publishedAt: '2026-01-01'})
      const previous = mapCatalog(
        await catalogRowsOf([holder, newcomer]),
        settings,
        mapCatalog(await catalogRowsOf([holder]), settings),
      )
      const edited = [{...holder, title: 'המחזיק, ערוך'}, newcomer]
      const full = mapCatalog(await catalogRowsOf(edited), settings, previous)
      const incremental = patchCatalog(
        previous,
        [
          {
            collection: 'episodes',
            documentId: 'holder',
            row: await fetchFrom(edited, EPISODE_BY_ID_QUERY, {id: 'holder'}),
          },
        ],
        settings,
      )
      for (const catalog of [full, incremental]) {
        expect(served(catalog)).toEqual(['holder:taken:המחזיק, ערוך'])
        expect(problems(catalog)).toMatchObject([{documentId: 'newcomer', severity: 'rejected'}])
      }
    })
  })

  describe('a refused document keeps its last valid version while its slug is free', () => {
    const broken = {...other, title: undefined}

    it('keeps it when the edit broke the document but not its slug, and when the broken edit also asks for a new slug', async () => {
      const renamedAndBroken = await bothWays(
        [holder, other],
        [holder, {...broken, slug: {_type: 'slug', current: 'elsewhere'}}],
        'other',
      )
      expect(served(renamedAndBroken)).toEqual(['other:other:אחר', 'holder:taken:המחזיק'])
      expect(problems(renamedAndBroken)).toMatchObject([{documentId: 'other', severity: 'kept'}])
    })

    it('lets no other document take the slug its kept version holds', async () => {
      const previous = mapCatalog(
        await catalogRowsOf([holder, broken]),
        settings,
        mapCatalog(await catalogRowsOf([holder, other]), settings),
      )
      expect(problems(previous)).toMatchObject([{documentId: 'other', severity: 'kept'}])
      const after = [{...holder, slug: {_type: 'slug', current: 'other'}}, broken]
      const full = mapCatalog(await catalogRowsOf(after), settings, previous)
      const incremental = patchCatalog(
        previous,
        [
          {
            collection: 'episodes',
            documentId: 'holder',
            row: await fetchFrom(after, EPISODE_BY_ID_QUERY, {id: 'holder'}),
          },
        ],
        settings,
      )
      expect(served(incremental), 'a per-document build').toEqual(['other:other:אחר', 'holder:taken:המחזיק'])
      expect(served(full), 'a full re-read, as the per-document build').toEqual(served(incremental))
      expect(problems(full)).toEqual(problems(incremental))
    })

    it('still keeps it when it is fixed under a slug another holds, and serves the fix under a free one', async () => {
      const previous = mapCatalog(
        await catalogRowsOf([holder, broken]),
        settings,
        mapCatalog(await catalogRowsOf([holder, other]), settings),
      )
      const bothBuilds = async (after: SanityDocument[]) => {
        const full = mapCatalog(await catalogRowsOf(after), settings, previous)
        const incremental = patchCatalog(
          previous,
          [
            {
              collection: 'episodes',
              documentId: 'other',
              row: await fetchFrom(after, EPISODE_BY_ID_QUERY, {id: 'other'}),
            },
          ],
          settings,
        )
        expect(served(incremental)).toEqual(served(full))
        expect(problems(incremental)).toEqual(problems(full))
        return full
      }
      const clash = await bothBuilds([holder, {...other, title: 'תוקן', slug: {_type: 'slug', current: 'taken'}}])
      expect(served(clash)).toEqual(['other:other:אחר', 'holder:taken:המחזיק'])
      expect(problems(clash)).toEqual([
        {
          documentId: 'other',
          collection: 'episodes',
          severity: 'kept',
          messages: ['slug: "taken" is already used by another document in episodes'],
        },
      ])
      const fixed = await bothBuilds([holder, {...other, title: 'תוקן'}])
      expect(served(fixed)).toEqual(['other:other:תוקן', 'holder:taken:המחזיק'])
      expect(fixed.problems).toEqual([])
    })
  })
})
