// Unit: the pure half of the dataset file's diff — the documents the replaced lines touch.
import {createHash} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {touchedDocuments} from '../../server/content/line-diff.ts'

describe('touched documents', () => {
  const line = (text: string, id?: string) => ({
    digest: createHash('sha256').update(text).digest('base64'),
    identity: id === undefined ? undefined : {id, type: 'episode'},
  })

  it('are the documents of lines added or removed, not of lines that only moved', () => {
    const before = [line('{"_id":"a","v":1}', 'a'), line('{"_id":"b"}', 'b'), line('{"_id":"c"}', 'c')]
    const after = [line('{"_id":"b"}', 'b'), line('{"_id":"a","v":2}', 'a'), line('{"_id":"d"}', 'd')]
    expect(touchedDocuments(before, after).map((document) => document.id)).toEqual(['a', 'd', 'c'])
  })

  it('report an id whose two lines swapped places (the last one is the document read)', () => {
    const [first, second] = [line('{"_id":"a","v":1}', 'a'), line('{"_id":"a","v":2}', 'a')]
    expect(touchedDocuments([first, second], [second, first])).toEqual([{id: 'a', type: 'episode'}])
  })

  it('report a document once when its line changed, and skip blank lines', () => {
    expect(
      touchedDocuments([line('{"_id":"a","v":1}', 'a'), line('')], [line('{"_id":"a","v":2}', 'a'), line(' ')]),
    ).toEqual([{id: 'a', type: 'episode'}])
    expect(touchedDocuments([line('same', 'a')], [line('same', 'a')])).toEqual([])
  })
})
