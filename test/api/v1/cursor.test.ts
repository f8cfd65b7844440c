import {describe, expect, it} from 'vitest'
import {decodeCursor, encodeCursor} from '../../../server/api/v1/cursor.ts'

const refused = {ok: false, reason: expect.stringMatching(/cursor is not one this API issued/)}
const cursorOf = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url')

describe('cursors', () => {
  it.each([
    ['Hebrew names', ['גל׳ ג׳ורג׳', 'gal-george']],
    ['dates', ['2026-11-23', 'ep-12-audio-at-scale']],
    ['empty parts', ['', '']],
    ['quotes, backslashes and emoji', ['"\\ 🎙️ \u0000', 'x']],
  ] as const)('round-trip %s, in the URL-safe alphabet', (_name, key) => {
    const cursor = encodeCursor(key)
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor)).toEqual({ok: true, key})
  })

  it('carries version 1 and refuses any other version', () => {
    expect(JSON.parse(Buffer.from(encodeCursor(['a', 'b']), 'base64url').toString('utf8'))).toEqual([1, 'a', 'b'])
    expect(decodeCursor(cursorOf([1, 'a', 'b']))).toEqual({ok: true, key: ['a', 'b']})
    for (const version of [0, 2, '1', null])
      expect(decodeCursor(cursorOf([version, 'a', 'b'])), String(version)).toEqual(refused)
  })

  it('refuses other shapes', () => {
    for (const payload of [[1, 'a'], [1, 'a', 'b', 'c'], [1, 'a', 2], {0: 1, 1: 'a', 2: 'b'}, 'a', null]) {
      expect(decodeCursor(cursorOf(payload)), JSON.stringify(payload)).toEqual(refused)
    }
    expect(decodeCursor(Buffer.from('[1,"a",').toString('base64url')), 'not JSON').toEqual(refused)
    expect(decodeCursor(''), 'empty').toEqual(refused)
  })

  it('refuses characters outside base64url, padding included', () => {
    const cursor = encodeCursor(['2026-01-01', 'ep-1'])
    for (const bad of [
      `${cursor}=`,
      cursor.replace(/./, '+'),
      cursor.replace(/./, '/'),
      `${cursor} `,
      `${cursor}.`,
      `א${cursor}`,
    ]) {
      expect(decodeCursor(bad), bad).toEqual(refused)
    }
  })

  it('reads cursors of up to 1024 characters and refuses longer ones unread', () => {
    // A valid payload padded with spaces (JSON whitespace) to exactly the bound.
    const atBound = (length: number) => {
      const json = JSON.stringify([1, 'a', 'b'])
      const bytes = (length / 4) * 3
      return Buffer.from(`${' '.repeat(bytes - json.length)}${json}`).toString('base64url')
    }
    expect(atBound(1024)).toHaveLength(1024)
    expect(decodeCursor(atBound(1024))).toEqual({ok: true, key: ['a', 'b']})
    const over = `${atBound(1024)}IA` // one more space, 1026 characters
    expect(JSON.parse(Buffer.from(over, 'base64url').toString('utf8'))).toEqual([1, 'a', 'b'])
    expect(decodeCursor(over)).toEqual(refused)
    expect(decodeCursor(`${atBound(1024)}I`), '1025 characters').toEqual(refused)
  })
})
