import {evaluate, parse} from 'groq-js'
import {describe, expect, it} from 'vitest'
import {createEmbeddedSource, idLookupParameter} from '../../server/content/embedded-source.ts'
import {EPISODE_BY_ID_QUERY, VOICE_BY_ID_QUERY} from '../../server/content/queries.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {episode, guests, voice} from '../fixtures/documents.ts'

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
    const source = createEmbeddedSource('inline', async () => [voice('dana', {name: 'דנה'}), episode('ep-1', {guests: guests('dana', 'gone')})])
    expect(await source.fetch('*[_type == "episode" && slug.current == $slug][0]{"names": guests[]->name}', {slug: 'ep-1'})).toEqual({names: ['דנה', null]})
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
    expect(parseNdjson('{"_id":"a","_type":"voice"}\n\n{"_id":"b","_type":"voice"}\n', 'x.ndjson').map((document) => document._id)).toEqual(['a', 'b'])
  })

  it('names the file and line of a broken document', () => {
    expect(() => parseNdjson('{"_id":"a","_type":"voice"}\n{oops', 'data.ndjson')).toThrow(/^data\.ndjson:2: not valid JSON/)
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
    const scanned = async (query: string, params: Record<string, unknown>) =>
      (await evaluate(parse(query), {dataset: documents.filter((document) => !document._id.startsWith('drafts.')), params})).get()
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
