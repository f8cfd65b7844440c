import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {evaluate, parse} from 'groq-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {idLookupParameter, textLookupParameter} from '../../server/content/dataset-lookup.ts'
import {createEmbeddedFileSource, createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {EPISODE_BY_ID_QUERY, REFERENCING_QUERY, VOICE_BY_ID_QUERY} from '../../catalog/queries.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {episode, guests, meetup, voice} from '../fixtures/documents.ts'

/** What groq-js's own scan of the published documents answers: what every lookup must answer. */
const scannedOver = (documents: SanityDocument[]) => async (query: string, params: Record<string, unknown>) =>
  (
    await evaluate(parse(query), {dataset: documents.filter((document) => !document._id.startsWith('drafts.')), params})
  ).get()

describe('embedded source', () => {
  it('evaluates GROQ over the published perspective: no drafts, no release versions', async () => {
    const source = createEmbeddedSource('inline', async () => [
      episode('published'),
      {...episode('published'), _id: 'drafts.published', title: 'טיוטה'},
      episode('draft-only', {_id: 'drafts.draft-only'}),
      episode('in-release', {_id: 'versions.r1.in-release'}),
    ])
    expect(await source.fetch('*[_type == "episode"]{_id, title}')).toEqual([{_id: 'published', title: 'פרק לדוגמה'}])
  })

  it('resolves references, and passes parameters', async () => {
    const source = createEmbeddedSource('inline', async () => [
      voice('dana', {name: 'דנה'}),
      episode('ep-1', {guests: guests('dana', 'gone')}),
    ])
    expect(
      await source.fetch('*[_type == "episode" && slug.current == $slug][0]{"names": guests[]->name}', {slug: 'ep-1'}),
    ).toEqual({names: ['דנה', null]})
  })

  it('reads the documents again on every fetch', async () => {
    let documents = [voice('a')]
    const source = createEmbeddedSource('inline', async () => documents)
    expect(await source.fetch('count(*)')).toBe(1)
    documents = [voice('a'), voice('b')]
    expect(await source.fetch('count(*)')).toBe(2)
  })
})

describe('parseNdjson', () => {
  it('reads one document per line and skips blank lines', () => {
    expect(
      parseNdjson('{"_id":"a","_type":"voice"}\n\n{"_id":"b","_type":"voice"}\n', 'x.ndjson').map(
        (document) => document._id,
      ),
    ).toEqual(['a', 'b'])
  })

  it('names the file and line of a broken document', () => {
    expect(() => parseNdjson('{"_id":"a","_type":"voice"}\n{oops', 'data.ndjson')).toThrow(
      /^data\.ndjson:2: not valid JSON/,
    )
    expect(() => parseNdjson('{"_type":"voice"}', 'data.ndjson')).toThrow('data.ndjson:1: not a Sanity document')
  })

  describe('a query whose only * is narrowed by _id == $param', () => {
    it('is recognised, and nothing else is', () => {
      expect(idLookupParameter(parse(EPISODE_BY_ID_QUERY))).toBe('id')
      expect(idLookupParameter(parse('*[$key == _id][0]'))).toBe('key')
      expect(idLookupParameter(parse('*[_type == "episode"][_id == $id][0]'))).toBeUndefined()
      expect(idLookupParameter(parse('*[_id != $id]'))).toBeUndefined()
      expect(idLookupParameter(parse('*[guests[0]._id == $id]'))).toBeUndefined()
      expect(idLookupParameter(parse('{"one": *[_id == $id][0], "all": count(*)}'))).toBeUndefined()
    })

    // The lookup must give what groq-js's own scan of the published documents gives.
    const documents = [
      voice('dana', {name: 'דנה'}),
      episode('ep-1', {guests: guests('dana', 'gone')}),
      {...episode('ep-1'), _id: 'drafts.ep-1', title: 'טיוטה'},
      episode('draft-only', {_id: 'drafts.draft-only'}),
    ]
    const scanned = scannedOver(documents)
    it.each([
      ['an episode', EPISODE_BY_ID_QUERY, {id: 'ep-1'}],
      ['a voice', VOICE_BY_ID_QUERY, {id: 'dana'}],
      ['a draft', EPISODE_BY_ID_QUERY, {id: 'drafts.ep-1'}],
      ['a missing id', EPISODE_BY_ID_QUERY, {id: 'nobody'}],
      ['an id of another type', EPISODE_BY_ID_QUERY, {id: 'dana'}],
      ['an id that is not a string', '*[_id == $id]{_id}', {id: 7}],
      ['two * in one query', '{"one": *[_id == $id][0]._id, "all": count(*)}', {id: 'ep-1'}],
    ])('answers as a scan would for %s', async (_name, query, params) => {
      const source = createEmbeddedSource('inline', async () => documents)
      expect(await source.fetch(query, params)).toEqual(await scanned(query, params))
    })
  })
})

describe("a query whose every * needs a parameter's value in the document", () => {
  it('is recognised, and nothing else is', () => {
    expect(textLookupParameter(parse(REFERENCING_QUERY))).toBe('id')
    expect(textLookupParameter(parse('*[references($voice)]{_id}'))).toBe('voice')
    expect(textLookupParameter(parse('*[_type == "episode" && (slug.current == $slug)][0]'))).toBe('slug')
    expect(textLookupParameter(parse('*[$id in guests[]._ref || $id in speakers[]._ref]'))).toBe('id')
    expect(textLookupParameter(parse('*[$id in guests[]._ref || $other in speakers[]._ref]'))).toBeUndefined()
    expect(textLookupParameter(parse('*[$id in guests[]._ref || _type == "voice"]'))).toBeUndefined()
    expect(textLookupParameter(parse('*[!references($id)]'))).toBeUndefined()
    expect(textLookupParameter(parse('*[$id in guests[]->slug.current]'))).toBeUndefined()
    expect(textLookupParameter(parse('*[$id != _id]'))).toBeUndefined()
    expect(textLookupParameter(parse('{"one": *[references($id)], "all": count(*)}'))).toBeUndefined()
    expect(textLookupParameter(parse('{"a": *[references($id)], "b": *[references($other)]}'))).toBeUndefined()
  })

  // Through the dataset file, whose set searches the lines' bytes: the same answers as groq-js's own scan.
  const documents = [
    voice('dana', {name: 'דנה'}),
    voice('dan', {name: 'דן'}),
    episode('ep-1', {guests: guests('dana', 'gone')}),
    episode('ep-2', {guests: guests('dan')}),
    episode('ep-3', {title: 'dana בכותרת', guests: []}),
    meetup('talk', {speakers: guests('dana')}),
    {...episode('ep-2'), _id: 'drafts.ep-2', guests: guests('dana')},
  ]
  let folder: string
  let file: string
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'text-lookup-'))
    file = join(folder, 'catalog.ndjson')
    await writeFile(file, documents.map((document) => JSON.stringify(document)).join('\n'))
  })
  afterAll(() => rm(folder, {recursive: true, force: true}))
  const scanned = scannedOver(documents)
  it.each([
    ['a voice two documents reference', REFERENCING_QUERY, {id: 'dana'}],
    ['an id that is a prefix of another', REFERENCING_QUERY, {id: 'dan'}],
    ['an id nothing references', REFERENCING_QUERY, {id: 'gone-forever'}],
    ['a value with characters a byte search cannot trust', '*[slug.current == $slug]{_id}', {slug: 'ep "1"'}],
    ['a value that is not a string', '*[references($id)]{_id}', {id: ['dana', 'dan']}],
    ['references()', '*[references($id)]{_id, "names": guests[]->name}', {id: 'dana'}],
  ])('answers as a scan would for %s', async (_name, query, params) => {
    const source = createEmbeddedFileSource(file)
    expect(await source.fetch(query, params)).toEqual(await scanned(query, params))
    // After an edit, the set parses only the lines it needs; the answers stay the same.
    await source.changedDocuments?.()
    expect(await source.fetch(query, params)).toEqual(await scanned(query, params))
  })
})
