// What the catalog reports for each document it does not serve as it is: the collection (or the
// settings) it belongs to, the severity, and the messages, exactly once each; and the voices an
// episode may link to when a voice and the episode arrive in one batch of updates.
import {describe, expect, it} from 'vitest'
import {mapCatalog, patchCatalog, type DocumentUpdate} from '../../../catalog/v1/catalog.ts'
import {mapOneDocument} from '../../../catalog/v1/document-mapping.ts'
import type {SanityDocument} from '../../../server/content/ndjson.ts'
import {EPISODE_BY_ID_QUERY, VOICE_BY_ID_QUERY} from '../../../catalog/queries.ts'
import {episode, guests, meetup, voice} from '../../fixtures/documents.ts'
import {catalogRowsOf, fetchFrom, settings, settingsRow} from '../../helpers/catalog-mapping.ts'

interface Rows {
  episodes: unknown[]
  meetups: unknown[]
  voices: unknown[]
  podcast: unknown
}
const rowsOf = async (documents: SanityDocument[]) => (await catalogRowsOf(documents)) as Rows

const BEFORE = [voice('dana'), meetup('m-1'), episode('ep-1', {publishedAt: '2025-01-01'})]
const CLEANED = 'removed characters that XML cannot carry (control characters, U+FFFE, U+FFFF or lone surrogates)'

const noDocuments = {episodes: [], meetups: [], voices: []}

describe('the podcast settings in the problems', () => {
  it('report nothing for valid settings, and a warning naming what valid settings left out', () => {
    const clean = mapCatalog({...noDocuments, podcast: settingsRow()}, settings)
    expect(clean.podcast).toMatchObject({ok: true})
    expect(clean.problems).toEqual([])
    const warned = mapCatalog({...noDocuments, podcast: settingsRow({complete: 'yes'})}, settings)
    expect(warned.podcast).toMatchObject({ok: true})
    expect(warned.problems).toEqual([
      {
        documentId: 'podcastSettings',
        collection: 'settings',
        severity: 'warning',
        messages: [expect.stringMatching(/^complete: .*; left out of the feed$/)],
      },
    ])
  })

  it('reject invalid settings once, or keep the last valid ones and say so', () => {
    const refused = mapCatalog({...noDocuments, podcast: {_id: 'podcastSettings'}}, settings)
    expect(refused.podcast).toMatchObject({ok: false})
    expect(refused.problems).toEqual([
      {documentId: 'podcastSettings', collection: 'settings', severity: 'rejected', messages: expect.any(Array)},
    ])
    expect(refused.problems[0]?.messages.length).toBeGreaterThan(0)
    const previous = mapCatalog({...noDocuments, podcast: settingsRow()}, settings)
    const kept = mapCatalog({...noDocuments, podcast: {_id: 'podcastSettings'}}, settings, previous)
    expect(kept.podcast).toBe(previous.podcast)
    expect(kept.problems).toEqual([
      {documentId: 'podcastSettings', collection: 'settings', severity: 'kept', messages: expect.any(Array)},
    ])
  })
})

describe('the documents in the problems of a full build', () => {
  it('name the collection of a refused voice and meetup, report each refused document once, and "(no _id)" for one without', async () => {
    const rows = await rowsOf(BEFORE)
    const catalog = mapCatalog(
      {
        episodes: [...rows.episodes, {_id: 'broken-episode'}],
        meetups: [...rows.meetups, {_id: 'broken-meetup'}],
        voices: [...rows.voices, {_id: 'broken-voice'}, {}],
        podcast: rows.podcast,
      },
      settings,
    )
    expect(catalog.problems.map(({documentId, collection, severity}) => [documentId, collection, severity])).toEqual([
      ['broken-voice', 'voices', 'rejected'],
      ['(no _id)', 'voices', 'rejected'],
      ['broken-episode', 'episodes', 'rejected'],
      ['broken-meetup', 'meetups', 'rejected'],
    ])
    expect(catalog.voices.map((entry) => entry.documentId)).toEqual(['dana'])
  })

  it('warn of each field whose text was cleaned, by its path, and serve the cleaned text', async () => {
    const catalog = mapCatalog(
      await rowsOf([...BEFORE, episode('ep-2', {title: 'פרק\u0000 שני', tags: ['ok', 'te\u0001st']})]),
      settings,
    )
    expect(catalog.episodes.find((entry) => entry.documentId === 'ep-2')?.value).toMatchObject({
      title: 'פרק שני',
      tags: ['ok', 'test'],
    })
    expect(catalog.problems).toEqual([
      {
        documentId: 'ep-2',
        collection: 'episodes',
        severity: 'warning',
        messages: [`title: ${CLEANED}`, `tags.1: ${CLEANED}`],
      },
    ])
  })
})

describe('the problems of a per-document build', () => {
  it('name the collection of a refused voice and meetup, and leave the other collections alone', async () => {
    const previous = mapCatalog(await rowsOf(BEFORE), settings)
    const patched = patchCatalog(
      previous,
      [
        {collection: 'voices', documentId: 'broken-voice', row: {_id: 'broken-voice'}},
        {collection: 'meetups', documentId: 'broken-meetup', row: {_id: 'broken-meetup'}},
      ],
      settings,
    )
    expect(patched.problems.map(({documentId, collection, severity}) => [documentId, collection, severity])).toEqual([
      ['broken-voice', 'voices', 'rejected'],
      ['broken-meetup', 'meetups', 'rejected'],
    ])
  })

  it('apply a voice edit to the voices alone, with no problem', async () => {
    const previous = mapCatalog(await rowsOf(BEFORE), settings)
    const after = BEFORE.map((document) => (document._id === 'dana' ? {...document, name: 'תמר'} : document))
    const row = await fetchFrom(after, VOICE_BY_ID_QUERY, {id: 'dana'})
    const patched = patchCatalog(previous, [{collection: 'voices', documentId: 'dana', row}], settings)
    expect(patched.voices.map((entry) => entry.value.name)).toEqual(['תמר'])
    expect(patched.problems).toEqual([])
    expect(patched.meetups).toBe(previous.meetups)
    expect(patched.episodes).toBe(previous.episodes)
  })

  it('link an episode to a voice added in the same batch', async () => {
    const previous = mapCatalog(await rowsOf(BEFORE), settings)
    const after = [
      ...BEFORE.map((document) => (document._id === 'ep-1' ? {...document, guests: guests('dana', 'noa')} : document)),
      voice('noa', {name: 'נועה'}),
    ]
    const updates: DocumentUpdate[] = [
      {collection: 'voices', documentId: 'noa', row: await fetchFrom(after, VOICE_BY_ID_QUERY, {id: 'noa'})},
      {collection: 'episodes', documentId: 'ep-1', row: await fetchFrom(after, EPISODE_BY_ID_QUERY, {id: 'ep-1'})},
    ]
    const patched = patchCatalog(previous, updates, settings)
    expect(patched.episodes[0]?.value.guests.map((guest) => guest.slug)).toEqual(['dana', 'noa'])
    expect(patched.problems).toEqual([])
  })
})

describe('the wording of a refused document', () => {
  const context = {...settings, servedVoices: new Set<string>()}
  const episodeRow = async (fields: Record<string, unknown>) => (await rowsOf([episode('ep-9', fields)])).episodes[0]

  it('names what a value of no form of a union was: its type, or its first 40 characters', async () => {
    const numbered = mapOneDocument('episodes', await episodeRow({publishedAt: 5}), context)
    expect(!numbered.ok && numbered.messages).toContain(
      'published_at: fits none of its forms (Invalid input: expected string, received number); got number',
    )
    const long = mapOneDocument('episodes', await episodeRow({publishedAt: `${'x'.repeat(40)}tail`}), context)
    expect(!long.ok && long.messages).toContain(
      `published_at: fits none of its forms (Invalid ISO date; Invalid ISO datetime); got "${'x'.repeat(40)}"`,
    )
  })

  it('names a nested field by its dotted path', async () => {
    const mapped = mapOneDocument('episodes', await episodeRow({tags: ['ok', 5]}), context)
    expect(!mapped.ok && mapped.messages).toEqual([expect.stringMatching(/^tags\.1: /)])
  })

  it('words an objection of the contract to the mapped item with the error map it is given', async () => {
    const mapped = mapOneDocument('episodes', (await rowsOf([episode('Bad Slug')])).episodes[0], context, () => 'חסר')
    expect(!mapped.ok && mapped.messages).toEqual(['slug: חסר'])
  })
})
