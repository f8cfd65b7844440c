// The range of a body kept in chunks (the feed of a large catalog): the same bytes as the whole
// body's; which range a request gets. No socket: the bodies and requests are made here.
import {describe, expect, it} from 'vitest'
import {answerRange, contentRange, sliceBody} from '../../server/http/byte-ranges.ts'
import {ACCEPT_RANGES} from '../../server/snapshot/representation.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {fakeRequest} from '../helpers/fake-response.ts'

const bytes = (body: Buffer | ChunkedBody) => (Buffer.isBuffer(body) ? body : Buffer.concat(body.chunks))

describe('sliceBody', () => {
  const parts = ['<rss>', '<item>one</item>', '', '<item>two</item>', '</rss>'].map((part) => Buffer.from(part))
  const whole = Buffer.concat(parts)
  // A limit of 0 keeps the chunks, as a body past ONE_BUFFER_LIMIT does.
  const chunked = new ChunkedBody(parts, 0)

  it('gives exactly the bytes of every range, across chunk boundaries, from chunks and from one buffer', () => {
    expect(chunked.whole).toBeUndefined()
    for (let start = 0; start < whole.length; start += 3)
      for (let end = start; end < whole.length; end += 2) {
        const expected = whole.subarray(start, end + 1)
        expect(bytes(sliceBody(chunked, start, end)).equals(expected), `${start}-${end}`).toBe(true)
        expect(bytes(sliceBody(whole, start, end)).equals(expected)).toBe(true)
      }
  })
})

describe('answerRange', () => {
  const ETAG = '"abc"'
  const DATE = 'Thu, 26 Nov 2026 10:00:00 GMT'
  const ask = (headers: Record<string, string>, method = 'GET', length = 100) =>
    answerRange(fakeRequest(method, '/feed.xml', headers), length, ETAG, DATE)

  it('gives one range as a 206 with its first and last byte, a suffix and an open end included', () => {
    expect(ask({range: 'bytes=0-9'})).toEqual({status: 206, start: 0, end: 9})
    expect(ask({range: 'bytes=90-'})).toEqual({status: 206, start: 90, end: 99})
    expect(ask({range: 'bytes=-5'})).toEqual({status: 206, start: 95, end: 99})
    expect(ask({range: 'bytes=50-500'})).toEqual({status: 206, start: 50, end: 99})
    expect(ask({range: 'bytes=99-99'})).toEqual({status: 206, start: 99, end: 99})
    // RFC 9110 14.1: the unit's name is case-insensitive.
    expect(ask({range: 'Bytes=0-9'})).toEqual({status: 206, start: 0, end: 9})
  })

  it('gives the whole representation as a 206 for a suffix longer than it (RFC 9110 14.1.3)', () => {
    expect(ask({range: 'bytes=-100'})).toEqual({status: 206, start: 0, end: 99})
    expect(ask({range: 'bytes=-101'})).toEqual({status: 206, start: 0, end: 99})
    expect(ask({range: 'bytes=-1000000'})).toEqual({status: 206, start: 0, end: 99})
  })

  it('answers the whole for no Range, another method, several ranges, another unit or a malformed Range', () => {
    expect(ask({})).toEqual({status: 200})
    expect(ask({range: 'bytes=0-9'}, 'HEAD')).toEqual({status: 200})
    expect(ask({range: 'bytes=0-9'}, 'POST')).toEqual({status: 200})
    expect(ask({range: 'items=0-9'})).toEqual({status: 200})
    // Several ranges, overlapping, repeated or not, and even when none is satisfiable: never merged.
    for (const range of ['bytes=0-9,20-29', 'bytes=0-50,25-75', 'bytes=0-9,0-9', 'bytes=0-10,5-20', 'bytes=200-,300-'])
      expect(ask({range}), range).toEqual({status: 200})
  })

  it('answers the whole for a Range that is not one range-spec: malformed, or last before first', () => {
    // Not one range-spec as RFC 9110 14.1.1 writes it; last < first is an invalid int-range.
    for (const range of [
      'bytes=abc',
      'bytes=',
      'bytes=-',
      'bytes=5-4',
      'bytes=1-2-3',
      'bytes=0x1-9',
      'bytes= 0-9',
      'bytes=0-9,',
      'bytes 0-9',
    ])
      expect(ask({range}), range).toEqual({status: 200})
  })

  it('answers 416 for a single range that starts past the end, or an empty suffix', () => {
    expect(ask({range: 'bytes=100-200'})).toEqual({status: 416})
    expect(ask({range: 'bytes=100-'})).toEqual({status: 416})
    expect(ask({range: `bytes=${'9'.repeat(400)}-`})).toEqual({status: 416})
    expect(ask({range: 'bytes=-0'})).toEqual({status: 416})
    expect(ask({range: 'bytes=0-'}, 'GET', 0)).toEqual({status: 416})
  })

  it('sends the whole of an empty representation for a suffix: a 206 could not name its bytes', () => {
    expect(ask({range: 'bytes=-5'}, 'GET', 0)).toEqual({status: 200})
  })

  it('takes the range only when If-Range names these bytes, by strong ETag or the exact Last-Modified', () => {
    expect(ask({range: 'bytes=0-9', 'if-range': ETAG})).toEqual({status: 206, start: 0, end: 9})
    expect(ask({range: 'bytes=0-9', 'if-range': DATE})).toEqual({status: 206, start: 0, end: 9})
    expect(ask({range: 'bytes=0-9', 'if-range': `W/${ETAG}`})).toEqual({status: 200})
    expect(ask({range: 'bytes=0-9', 'if-range': '"other"'})).toEqual({status: 200})
    expect(ask({range: 'bytes=0-9', 'if-range': 'Thu, 26 Nov 2026 10:00:01 GMT'})).toEqual({status: 200})
    expect(ask({range: 'bytes=100-', 'if-range': '"other"'})).toEqual({status: 200})
  })
})

describe('contentRange', () => {
  it('says which bytes a 206 holds, and the length alone for a 416', () => {
    expect(contentRange({status: 206, start: 0, end: 9}, 100)).toBe('bytes 0-9/100')
    expect(contentRange({status: 416}, 100)).toBe('bytes */100')
    expect(ACCEPT_RANGES).toEqual({'Accept-Ranges': 'bytes'})
  })
})
