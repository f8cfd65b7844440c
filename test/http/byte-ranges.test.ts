// The range of a body kept in chunks (the feed of a large catalog): the same bytes as the whole
// body's. No socket: the bodies are made here.
import {describe, expect, it} from 'vitest'
import {sliceBody} from '../../server/http/byte-ranges.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'

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
