// Range requests and the edge-TTL headers as sendRepresentation writes them, to responses that
// record what they are given: the exact head and bytes of a 206, a 416, and a Range left unread.
import {gunzipSync} from 'node:zlib'
import {describe, expect, it, vi} from 'vitest'
import {ACCEPT_RANGES} from '../../server/snapshot/representation.ts'
import {CACHE_CONTROL, sendRepresentation} from '../../server/http/representation-response.ts'
import {ResponseHeaders} from '../../server/http/response-headers.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {represent, type Representation} from '../../server/snapshot/representation.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const date = new Date('2026-05-06T07:08:09Z')
const LAST_MODIFIED = 'Wed, 06 May 2026 07:08:09 GMT'
const text = `<rss>${'פרק '.repeat(200)}</rss>`
const bytes = Buffer.from(text, 'utf8')
const XML = 'application/rss+xml; charset=utf-8'
const EDGE_TTL = 'max-age=86400, stale-if-error=86400'
// As the snapshot builds the feed with a CDN configured: the edge TTL and a surrogate key.
const feed = () =>
  represent(text, () => date, {
    contentType: XML,
    headers: {...ACCEPT_RANGES, 'CDN-Cache-Control': EDGE_TTL, 'Surrogate-Control': EDGE_TTL, xkey: 'feed'},
  })

const send = (representation: Representation, method: string, headers: Record<string, string>) => {
  const {response, written} = fakeResponse()
  sendRepresentation(fakeRequest(method, '/feed.xml', headers), response, representation, {
    headers: new ResponseHeaders(['X-Request-Id', 'r']),
  })
  return written
}

const validators = (etag: string, cacheControl = CACHE_CONTROL) => [
  'ETag',
  etag,
  'Last-Modified',
  LAST_MODIFIED,
  'Cache-Control',
  cacheControl,
  'Vary',
  'Accept-Encoding',
]

describe('a range of a document that takes them', () => {
  it('leaves the whole 200 as it was: public, with the edge TTL', () => {
    const representation = feed()
    const written = send(representation, 'GET', {'accept-encoding': 'identity'})
    expect(written.status).toBe(200)
    expect(written.headerList).toEqual([
      ...validators(representation.etag),
      'Content-Type',
      XML,
      'Accept-Ranges',
      'bytes',
      'CDN-Cache-Control',
      EDGE_TTL,
      'Surrogate-Control',
      EDGE_TTL,
      'xkey',
      'feed',
      'X-Request-Id',
      'r',
      'Content-Length',
      String(bytes.length),
    ])
  })

  it('is a 206 with exactly those bytes, Content-Range and their length, that no cache keeps', () => {
    const representation = feed()
    const written = send(representation, 'GET', {'accept-encoding': 'identity', range: 'bytes=3-12'})
    expect(written.status).toBe(206)
    expect(written.headerList).toEqual([
      ...validators(representation.etag, 'no-store'),
      'Content-Type',
      XML,
      'Accept-Ranges',
      'bytes',
      'xkey',
      'feed',
      'X-Request-Id',
      'r',
      'Content-Range',
      `bytes 3-12/${bytes.length}`,
      'Content-Length',
      '10',
    ])
    expect(written.body?.equals(bytes.subarray(3, 13))).toBe(true)
    expect(written.ended).toBe(true)
  })

  it('takes a suffix range to the last byte', () => {
    const written = send(feed(), 'GET', {'accept-encoding': 'identity', range: 'bytes=-5'})
    expect(written.status).toBe(206)
    expect(written.headers['content-range']).toBe(`bytes ${bytes.length - 5}-${bytes.length - 1}/${bytes.length}`)
    expect(written.body?.equals(bytes.subarray(bytes.length - 5))).toBe(true)
  })

  it('takes a suffix longer than the document as all of it: a 206 of every byte, identity and compressed', async () => {
    const representation = feed()
    const gzip = await representation.encode('gzip')
    const br = await representation.encode('br')
    if (!gzip || !br) throw new Error('expected compressed variants')
    for (const [coding, variant] of [
      ['identity', representation.identity],
      ['gzip', gzip],
      ['br', br],
    ] as const) {
      const written = send(representation, 'GET', {'accept-encoding': coding, range: 'bytes=-1000000'})
      const length = variant.body.length
      expect(written.status, coding).toBe(206)
      expect(written.headers['content-range']).toBe(`bytes 0-${length - 1}/${length}`)
      expect(written.headers['content-length']).toBe(String(length))
      expect(written.headers.etag).toBe(variant.etag)
      expect(written.body?.equals(Buffer.isBuffer(variant.body) ? variant.body : bytes)).toBe(true)
    }
  })

  it('is cut from a joined chunked body too, the same bytes', () => {
    const pieces = [bytes.subarray(0, 100), bytes.subarray(100, 250), bytes.subarray(250)]
    const representation = represent(new ChunkedBody(pieces), () => date, {contentType: XML, headers: ACCEPT_RANGES})
    const written = send(representation, 'GET', {'accept-encoding': 'identity', range: 'bytes=90-109'})
    expect(written.status).toBe(206)
    expect(written.headers['content-length']).toBe('20')
    expect(written.body?.equals(bytes.subarray(90, 110))).toBe(true)
  })

  it('is of the compressed bytes when a coding is chosen, as nginx serves a pre-compressed file', async () => {
    const representation = feed()
    const gzip = await representation.encode('gzip')
    if (!gzip) throw new Error('expected a gzip variant')
    const written = send(representation, 'GET', {'accept-encoding': 'gzip', range: 'bytes=0-9'})
    expect(written.status).toBe(206)
    expect(written.headers['content-encoding']).toBe('gzip')
    expect(written.headers.etag).toBe(gzip.etag)
    expect(written.headers['content-range']).toBe(`bytes 0-9/${gzip.body.length}`)
    expect(written.body?.equals(gzip.body.subarray(0, 10))).toBe(true)
  })

  it('past the end is a bodiless 416 naming the length, without the content headers, that no cache keeps', () => {
    const representation = feed()
    const written = send(representation, 'GET', {'accept-encoding': 'identity', range: `bytes=${bytes.length}-`})
    expect(written.status).toBe(416)
    expect(written.headerList).toEqual([
      ...validators(representation.etag, 'no-store'),
      'Accept-Ranges',
      'bytes',
      'xkey',
      'feed',
      'X-Request-Id',
      'r',
      'Content-Range',
      `bytes */${bytes.length}`,
      'Content-Length',
      '0',
    ])
    expect(written.body).toBeUndefined()
    expect(written.ended).toBe(true)
  })

  it('is answered with the whole 200 for several ranges, an invalid one, HEAD, or an If-Range naming other bytes', () => {
    for (const [method, headers] of [
      ['GET', {range: 'bytes=0-1,5-6'}],
      ['GET', {range: 'bytes=0-50,25-75'}],
      ['GET', {range: 'bytes=0-9,0-9'}],
      ['GET', {range: 'bytes=5-4'}],
      ['HEAD', {range: 'bytes=0-1'}],
      ['GET', {range: 'bytes=0-1', 'if-range': '"other"'}],
    ] as const) {
      const written = send(feed(), method, {'accept-encoding': 'identity', ...headers})
      expect(written.status, `${method} ${headers.range}`).toBe(200)
      expect(written.headers['cache-control']).toBe(CACHE_CONTROL)
      expect(written.headers['content-range']).toBeUndefined()
      expect(written.headers['content-length']).toBe(String(bytes.length))
      expect(written.ended).toBe(true)
      if (method === 'GET') expect(written.body?.equals(bytes)).toBe(true)
      else expect(written.body).toBeUndefined()
    }
  })

  it('gives way to a matching If-None-Match: a 304, not a part', () => {
    const representation = feed()
    const written = send(representation, 'GET', {
      'accept-encoding': 'identity',
      range: 'bytes=0-1',
      'if-none-match': representation.etag,
    })
    expect(written.status).toBe(304)
    expect(written.body).toBeUndefined()
  })
})

describe('a Range on a document that does not take them', () => {
  it('is ignored: the whole 200, no Content-Range', () => {
    const representation = represent(text, () => date, {contentType: XML})
    const written = send(representation, 'GET', {'accept-encoding': 'identity', range: 'bytes=3-12'})
    expect(written.status).toBe(200)
    expect(written.headers['content-range']).toBeUndefined()
    expect(written.headers['content-length']).toBe(String(bytes.length))
    expect(written.body?.equals(bytes)).toBe(true)
  })

  it('is ignored on a document with other headers of its own', () => {
    const representation = represent(text, () => date, {contentType: XML, headers: {'Accept-Ranges': 'none'}})
    const written = send(representation, 'GET', {'accept-encoding': 'identity', range: 'bytes=3-12'})
    expect(written.status).toBe(200)
    expect(written.body?.equals(bytes)).toBe(true)
  })
})

describe('a response that waited for its compression while the snapshot was replaced', () => {
  it('says no-store to the edge in place of the edge TTL and keeps every other document header as it is', async () => {
    const representation = represent(JSON.stringify({data: 'פרק '.repeat(300)}), () => date, {
      headers: {
        'CDN-Cache-Control': 'max-age=86400',
        Link: '<https://example.test/a>; rel="alternate"',
        'Surrogate-Control': 'max-age=86400',
        xkey: 'item:ep-1 list:episodes',
      },
    })
    const asked = {} as Snapshot
    const store = {current: () => ({}) as Snapshot}
    const {response, written} = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/x', {'accept-encoding': 'gzip'}), response, representation, {
      headers: new ResponseHeaders(['X-Request-Id', 'r']),
      servedFrom: {store, snapshot: asked},
    })
    await vi.waitFor(() => expect(written.ended).toBe(true), {timeout: 10_000})
    const gzip = representation.encoded('gzip')
    if (!gzip) throw new Error('expected a gzip variant')
    expect(written.status).toBe(200)
    expect(written.headerList).toEqual([
      ...validators(gzip.etag),
      'Content-Type',
      'application/json; charset=utf-8',
      'Content-Encoding',
      'gzip',
      'CDN-Cache-Control',
      'no-store',
      'Surrogate-Control',
      'no-store, max-age=0',
      'Link',
      '<https://example.test/a>; rel="alternate"',
      'xkey',
      'item:ep-1 list:episodes',
      'X-Request-Id',
      'r',
      'Content-Length',
      String(gzip.body.length),
    ])
    expect(gunzipSync(written.body ?? Buffer.alloc(0)).equals(representation.body)).toBe(true)
  })
})
