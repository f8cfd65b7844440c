// cleanStrings over values that hold more than strings: null, undefined, numbers and booleans sit
// beside the text it cleans and come out as they went in.
import {describe, expect, it} from 'vitest'
import {cleanStrings} from '../../../catalog/v1/xml-text.ts'

describe('cleanStrings beside values that are not text', () => {
  it('keeps null, undefined, numbers and booleans as they are, and cleans the string beside them', () => {
    const value = {gone: null, unset: undefined, count: 3, done: true, list: [null, 1], text: 'a\u0000b'}
    expect(cleanStrings(value)).toEqual({
      value: {gone: null, unset: undefined, count: 3, done: true, list: [null, 1], text: 'ab'},
      found: [{path: ['text'], character: {codePoint: 0, position: 2}}],
    })
  })

  it('finds nothing in a value of null, undefined and numbers alone', () => {
    const value = {gone: null, unset: undefined, count: 3}
    expect(cleanStrings(value)).toEqual({value, found: []})
    expect(cleanStrings(value).value).toBe(value)
  })
})
