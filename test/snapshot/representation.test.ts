// Pre-built bodies on their own: chunked bodies and their runs, compression, and the
// representation's validators and compressed variants.
import {createHash} from 'node:crypto'
import {brotliDecompressSync, gunzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {compress, CONTENT_CODINGS, forEachConcurrently} from '../../server/snapshot/compression.ts'
import {represent, Representation, type EncodedVariant} from '../../server/snapshot/representation.ts'

const bytes = (text: string) => Buffer.from(text, 'utf8')
const text = JSON.stringify({data: 'פרק על מטמונים '.repeat(200)})

describe('a chunked body', () => {
  it('joins chunks up to the limit into one buffer, and keeps larger ones in their chunks', () => {
    const chunks = [bytes('ab'), bytes('cd'), bytes('e')]
    const joined = new ChunkedBody(chunks, 5)
    expect(joined.length).toBe(5)
    expect(joined.whole?.toString()).toBe('abcde')
    expect(joined.chunks).toEqual([joined.whole])
    const kept = new ChunkedBody(chunks, 4)
    expect(kept.whole).toBeUndefined()
    expect(kept.chunks).toBe(chunks)
    expect(kept.toString('utf8')).toBe('abcde')
    expect(new ChunkedBody(chunks).whole?.toString(), 'the default limit').toBe('abcde')
  })

  it('joins up to 4 MB by default', () => {
    const limit = 4 * 1024 * 1024
    expect(new ChunkedBody([Buffer.alloc(limit - 1), Buffer.alloc(1)]).whole?.length).toBe(limit)
    expect(new ChunkedBody([Buffer.alloc(limit), Buffer.alloc(1)]).whole).toBeUndefined()
  })

  it('reads out in runs of at least the run size, the rest last', () => {
    const body = new ChunkedBody([bytes('ab'), bytes('cd'), bytes('e'), bytes('fgh'), bytes('i')], 0)
    expect([...body.runs(4)].map(String)).toEqual(['abcd', 'efgh', 'i'])
    expect([...body.runs(3)].map(String)).toEqual(['abcd', 'efgh', 'i'])
    expect([...body.runs(5)].map(String)).toEqual(['abcde', 'fghi'])
    expect([...body.runs(1)].map(String)).toEqual(['ab', 'cd', 'e', 'fgh', 'i'])
    expect([...new ChunkedBody([], 0).runs(4)]).toEqual([])
  })

  it('reads out in runs of 64 KB by default', () => {
    const body = new ChunkedBody(
      Array.from({length: 5}, () => Buffer.alloc(30 * 1024, 1)),
      0,
    )
    expect([...body.runs()].map((run) => run.length)).toEqual([90 * 1024, 60 * 1024])
  })
})

describe('compression', () => {
  it('offers br, then gzip', () => {
    expect(CONTENT_CODINGS).toEqual(['br', 'gzip'])
  })

  it('compresses a buffer and a chunked body to the same bytes a decompressor reads back', async () => {
    const whole = bytes(text)
    const chunked = new ChunkedBody([whole.subarray(0, 1000), whole.subarray(1000, 3000), whole.subarray(3000)], 0)
    for (const body of [whole, chunked]) {
      const br = await compress('br', body)
      const gzip = await compress('gzip', body)
      expect(brotliDecompressSync(br).equals(whole)).toBe(true)
      expect(gunzipSync(gzip).equals(whole)).toBe(true)
      expect(br.length).toBeLessThan(whole.length / 10)
      expect(gzip[0]).toBe(0x1f) // gzip's magic, not brotli's
    }
  })

  it('compresses gzip at level 9 and brotli at quality 6', async () => {
    const {gzipSync, brotliCompressSync, constants} = await import('node:zlib')
    const whole = bytes(text)
    expect((await compress('gzip', whole)).equals(gzipSync(whole, {level: 9}))).toBe(true)
    const brotli6 = brotliCompressSync(whole, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 6,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: whole.length,
        [constants.BROTLI_PARAM_LGWIN]: 13,
      },
    })
    expect((await compress('br', whole)).equals(brotli6)).toBe(true)
    expect((await compress('br', new ChunkedBody([whole], 0))).equals(brotli6)).toBe(true)
  })

  it('runs at most the given number of tasks at once, each item once', async () => {
    let running = 0
    let most = 0
    const done: number[] = []
    const task = async (item: number) => {
      running += 1
      most = Math.max(most, running)
      await new Promise((resolve) => setTimeout(resolve, 5))
      done.push(item)
      running -= 1
    }
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], task, 3)
    expect(most).toBe(3)
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7])
    most = 0
    await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], task)
    expect(most, 'four by default').toBe(4)
  })
})

describe('a representation', () => {
  const date = new Date('2026-03-04T05:06:07.890Z')

  it('has a strong ETag from its bytes alone, the same for a buffer and its chunks', () => {
    const whole = bytes(text)
    const etag = represent(whole, () => date).etag
    expect(etag).toBe(`"${createHash('sha256').update(whole).digest('base64url').slice(0, 32)}"`)
    expect(represent(new ChunkedBody([whole.subarray(0, 7), whole.subarray(7)], 0), () => date).etag).toBe(etag)
    expect(represent(`${text} `, () => date).etag).not.toBe(etag)
    expect(represent(text, () => date).etag).toBe(etag)
  })

  it('is JSON by default, dated to the whole second, with its headers as a flat list', () => {
    const seen: string[] = []
    const representation = represent(
      text,
      (etag) => {
        seen.push(etag)
        return date
      },
      {headers: {Link: '<x>', 'X-A': 'b'}},
    )
    expect(representation.contentType).toBe('application/json; charset=utf-8')
    expect(seen).toEqual([representation.etag])
    expect(representation.lastModified).toEqual(new Date('2026-03-04T05:06:07Z'))
    expect(representation.lastModifiedHeader).toBe('Wed, 04 Mar 2026 05:06:07 GMT')
    expect(representation.headerList).toEqual(['Link', '<x>', 'X-A', 'b'])
    expect(representation.identity).toEqual({coding: 'identity', body: representation.body, etag: representation.etag})
    expect(Object.isFrozen(representation)).toBe(true)
    expect(Object.isFrozen(representation.identity)).toBe(true)
    expect(represent(text, () => date).headerList).toEqual([])
  })

  it('takes a content type and an ETag the caller already has', () => {
    const representation = represent(bytes('x'), () => date, {contentType: 'text/plain', etag: '"given"'})
    expect(representation.contentType).toBe('text/plain')
    expect(representation.etag).toBe('"given"')
  })

  it('compresses each coding once, on request, with an ETag per coding', async () => {
    const representation = represent(text, () => date)
    expect(representation.encoded('br')).toBeUndefined()
    const [first, second] = await Promise.all([representation.encode('br'), representation.encode('br')])
    expect(first).toBe(second)
    expect(first?.coding).toBe('br')
    expect(first?.etag).toBe(`${representation.etag.slice(0, -1)}-br"`)
    expect(brotliDecompressSync(first?.body ?? Buffer.alloc(0)).toString()).toBe(text)
    expect(representation.encoded('br')).toBe(first)
    expect(await representation.encode('br')).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    expect(representation.encoded('gzip')).toBeUndefined()
    await representation.precompress()
    expect(representation.encoded('gzip')?.etag).toBe(`${representation.etag.slice(0, -1)}-gzip"`)
  })

  it('records a coding that does not make the body smaller as not worth sending', async () => {
    const representation = represent('{}', () => date)
    expect(await representation.encode('gzip')).toBeNull()
    expect(representation.encoded('gzip')).toBeNull()
    expect(await representation.encode('gzip')).toBeNull()
  })

  it('keeps its variants in the store it is given, under its ETag and the coding', async () => {
    const store = new Map<string, EncodedVariant>()
    const representation = represent(text, () => date, {variants: store})
    await representation.encode('gzip')
    expect([...store.keys()]).toEqual([`${representation.etag} gzip`])
    // A store that dropped the variant: compressed again.
    store.clear()
    expect(representation.encoded('gzip')).toBeUndefined()
    expect((await representation.encode('gzip'))?.coding).toBe('gzip')
    // Another representation of the same bytes finds it there.
    expect(represent(text, () => date, {variants: store}).encoded('gzip')).toBe(
      store.get(`${representation.etag} gzip`),
    )
  })

  it('compresses a chunked body as its bytes', async () => {
    const whole = bytes(text)
    const representation = new Representation(
      new ChunkedBody([whole.subarray(0, 100), whole.subarray(100)], 0),
      'application/json',
      () => date,
      {},
    )
    expect(gunzipSync((await representation.encode('gzip'))?.body ?? Buffer.alloc(0)).equals(whole)).toBe(true)
  })
})
