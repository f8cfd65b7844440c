import {describe, expect, it} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
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
})
