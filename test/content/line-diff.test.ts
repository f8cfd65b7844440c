// Unit: the pure half of the dataset file's diff — shared prefix and suffix, the lines they keep,
// the documents the replaced lines touch.
import {describe, expect, it} from 'vitest'
import {commonPrefixLength, commonSuffixLength, keptLines, touchedDocuments, type LineSpan} from '../../server/content/line-diff.ts'

const bytes = (text: string) => Buffer.from(text, 'utf8')

/** The spans of each line of `text` (newline excluded), as the file reader records them. */
function spans(text: string): LineSpan[] {
  const result: LineSpan[] = []
  let start = 0
  for (const line of text.split('\n')) {
    result.push({start, end: start + Buffer.byteLength(line)})
    start += Buffer.byteLength(line) + 1
  }
  return result
}

describe('common prefix and suffix', () => {
  it('count the bytes two buffers share at each end, up to the shorter one', () => {
    expect(commonPrefixLength(bytes('abcXdef'), bytes('abcYdef'))).toBe(3)
    expect(commonSuffixLength(bytes('abcXdef'), bytes('abcYdef'))).toBe(3)
    expect(commonPrefixLength(bytes('abc'), bytes('abcdef'))).toBe(3)
    expect(commonSuffixLength(bytes('def'), bytes('abcdef'))).toBe(3)
    expect(commonPrefixLength(bytes(''), bytes('abc'))).toBe(0)
    expect(commonPrefixLength(bytes('xbc'), bytes('abc'))).toBe(0)
    expect(commonSuffixLength(bytes('abx'), bytes('abc'))).toBe(0)
  })

  it('find a difference past the first 64 KiB block, and one inside its last byte', () => {
    const size = 64 * 1024 * 3 + 17
    const a = Buffer.alloc(size, 'א')
    for (const at of [0, 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 * 2 + 5, size - 1]) {
      const b = Buffer.from(a)
      b[at] = 0x21
      expect(commonPrefixLength(a, b)).toBe(at)
      expect(commonSuffixLength(a, b)).toBe(size - at - 1)
    }
    expect(commonPrefixLength(a, Buffer.from(a))).toBe(size)
    expect(commonSuffixLength(a, Buffer.from(a))).toBe(size)
  })
})

describe('kept lines', () => {
  const old = 'line one\nline two\nline three\nline four'
  const lines = spans(old)

  it('keep the lines before and after an edit inside one line', () => {
    const edited = old.replace('two', '2')
    const prefix = commonPrefixLength(bytes(old), bytes(edited))
    const suffix = commonSuffixLength(bytes(old), bytes(edited))
    expect(keptLines(lines, old.length, prefix, suffix)).toEqual({kept: 1, keptFromEnd: 2})
  })

  it('replace a line whose newline the edit reached, at either end', () => {
    // The prefix ends exactly at line one's newline: line one is not whole in it.
    expect(keptLines(lines, old.length, lines[0]?.end ?? 0, 0).kept).toBe(0)
    expect(keptLines(lines, old.length, (lines[0]?.end ?? 0) + 1, 0).kept).toBe(1)
    // A suffix keeps line four only when it holds the newline before it too, as the prefix must hold the one after.
    const fromFour = old.length - (lines[3]?.start ?? 0)
    expect(keptLines(lines, old.length, 0, fromFour + 1).keptFromEnd).toBe(3)
    expect(keptLines(lines, old.length, 0, fromFour).keptFromEnd).toBe(4)
  })

  it('never keep a line twice when prefix and suffix overlap (an append)', () => {
    const appended = `${old}\nline five`
    const prefix = commonPrefixLength(bytes(old), bytes(appended))
    const suffix = commonSuffixLength(bytes(old), bytes(appended))
    const {kept, keptFromEnd} = keptLines(lines, old.length, prefix, Math.min(suffix, old.length - prefix))
    expect(kept).toBeLessThanOrEqual(keptFromEnd)
    expect(kept).toBe(3)
  })
})

describe('touched documents', () => {
  const line = (text: string, id?: string) => ({text, identity: id === undefined ? undefined : {id, type: 'episode'}})

  it('are the documents of lines added or removed, not of lines that only moved', () => {
    const before = [line('{"_id":"a","v":1}', 'a'), line('{"_id":"b"}', 'b'), line('{"_id":"c"}', 'c')]
    const after = [line('{"_id":"b"}', 'b'), line('{"_id":"a","v":2}', 'a'), line('{"_id":"d"}', 'd')]
    expect(touchedDocuments(before, after).map((document) => document.id)).toEqual(['a', 'd', 'c'])
  })

  it('report a document once when its line changed, and skip blank lines', () => {
    expect(touchedDocuments([line('{"_id":"a","v":1}', 'a'), line('')], [line('{"_id":"a","v":2}', 'a'), line(' ')])).toEqual([{id: 'a', type: 'episode'}])
    expect(touchedDocuments([line('same', 'a')], [line('same', 'a')])).toEqual([])
  })
})
