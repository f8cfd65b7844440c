// The one rule for text XML can carry, as the catalog and the Studio use it: what is refused, where
// it is reported, and what is left of the text. No I/O: the values are made here.
import {describe, expect, it} from 'vitest'
import {cleanStrings, codePointName, firstForbiddenCharacter} from '../../../catalog/v1/xml-text.ts'

describe('firstForbiddenCharacter', () => {
  it('accepts Hebrew text, emoji, tab, line feed and carriage return', () => {
    expect(firstForbiddenCharacter('שלום עולם 🎙️\tשורה\nשנייה\r\n')).toBeUndefined()
    expect(firstForbiddenCharacter('')).toBeUndefined()
  })

  it('refuses the C0 controls but tab, line feed and carriage return, U+FFFE, U+FFFF and lone surrogates', () => {
    const refused = [0x00, 0x08, 0x0b, 0x0c, 0x0e, 0x1f, 0xfffe, 0xffff, 0xd800, 0xdfff]
    for (const codePoint of refused)
      expect(firstForbiddenCharacter(`א${String.fromCharCode(codePoint)}ב`), codePointName(codePoint)).toEqual({
        codePoint,
        position: 2,
      })
    for (const codePoint of [0x09, 0x0a, 0x0d, 0x20, 0x7f, 0xfffd])
      expect(firstForbiddenCharacter(`א${String.fromCharCode(codePoint)}ב`), codePointName(codePoint)).toBeUndefined()
  })

  it('gives the position in characters, counting a surrogate pair as one, and the first of several', () => {
    expect(firstForbiddenCharacter('\u{1F399}\u{1F399}x\u0001y\u0002')).toEqual({codePoint: 1, position: 4})
    expect(firstForbiddenCharacter('\u0007')).toEqual({codePoint: 7, position: 1})
  })

  it('finds a lone surrogate in a string that has no control character', () => {
    expect(firstForbiddenCharacter('ab\uDC00')).toEqual({codePoint: 0xdc00, position: 3})
    expect(firstForbiddenCharacter('ab\uD83C')).toEqual({codePoint: 0xd83c, position: 3})
  })
})

describe('codePointName', () => {
  it('names a character as U+ and at least four upper-case hex digits', () => {
    expect(codePointName(8)).toBe('U+0008')
    expect(codePointName(0xfffe)).toBe('U+FFFE')
    expect(codePointName(0x1f399)).toBe('U+1F399')
  })
})

describe('cleanStrings', () => {
  it('returns the very same value, and nothing found, when every string is clean', () => {
    const value = {title: 'פרק', tags: ['א', 'ב'], nested: {list: [{text: 'ג'}], count: 3, none: null}}
    const cleaned = cleanStrings(value)
    expect(cleaned.value).toBe(value)
    expect(cleaned.found).toEqual([])
  })

  it('removes every refused character of a string, and reports where it sat and its first refused character', () => {
    const cleaned = cleanStrings({title: 'a\u0001b\u0002c\uFFFFd'})
    expect(cleaned.value).toEqual({title: 'abcd'})
    expect(cleaned.found).toEqual([{path: ['title'], character: {codePoint: 1, position: 2}}])
  })

  it('reports paths of field names and array indexes, through arrays and objects at any depth', () => {
    const value = {
      title: 'clean',
      chapters: [{title: 'ok'}, {title: 'bad\u0008'}, {title: 'also\u000Bbad'}],
      guests: ['a', 'b\u0000'],
      host: {name: {he: 'x\uD800'}},
      count: 2,
      flag: true,
      empty: null,
    }
    const cleaned = cleanStrings(value)
    expect(cleaned.value).toEqual({
      title: 'clean',
      chapters: [{title: 'ok'}, {title: 'bad'}, {title: 'alsobad'}],
      guests: ['a', 'b'],
      host: {name: {he: 'x'}},
      count: 2,
      flag: true,
      empty: null,
    })
    expect(cleaned.found).toEqual([
      {path: ['chapters', 1, 'title'], character: {codePoint: 8, position: 4}},
      {path: ['chapters', 2, 'title'], character: {codePoint: 0x0b, position: 5}},
      {path: ['guests', 1], character: {codePoint: 0, position: 2}},
      {path: ['host', 'name', 'he'], character: {codePoint: 0xd800, position: 2}},
    ])
  })

  it('copies only what changed: the input is left as it was, and clean parts are shared', () => {
    const cleanPart = {title: 'ok'}
    const cleanList = ['a', 'b']
    const value = {chapters: [cleanPart, {title: 'bad\u0001'}], tags: cleanList}
    const cleaned = cleanStrings(value)
    expect(value.chapters[1]).toEqual({title: 'bad\u0001'})
    expect(cleaned.value).not.toBe(value)
    const result = cleaned.value as typeof value // the same shape, minus refused characters
    expect(result.chapters).not.toBe(value.chapters)
    expect(result.chapters[0]).toBe(cleanPart)
    expect(result.tags).toBe(cleanList)
  })

  it('cleans a bare string and a bare array, and leaves object keys alone', () => {
    expect(cleanStrings('a\u0001')).toEqual({value: 'a', found: [{path: [], character: {codePoint: 1, position: 2}}]})
    expect(cleanStrings(['ok', '\u0002'])).toEqual({
      value: ['ok', ''],
      found: [{path: [1], character: {codePoint: 2, position: 1}}],
    })
    expect(cleanStrings({'key\u0001': 'value'}).found).toEqual([])
    expect(cleanStrings(7)).toEqual({value: 7, found: []})
    expect(cleanStrings(null)).toEqual({value: null, found: []})
  })
})
