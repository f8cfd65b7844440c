// If-Match and If-Unmodified-Since (RFC 9110 13.1.1, 13.1.4) as sendRepresentation evaluates
// them, in 13.2.2's order, to responses that record what they are given: no socket.
import {describe, expect, it} from 'vitest'
import {ACCEPT_RANGES} from '../../server/snapshot/representation.ts'
import {CACHE_CONTROL, sendRepresentation} from '../../server/http/representation-response.ts'
import {ResponseHeaders} from '../../server/http/response-headers.ts'
import {represent, type Representation} from '../../server/snapshot/representation.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const date = new Date('2026-05-06T07:08:09Z')
const LAST_MODIFIED = 'Wed, 06 May 2026 07:08:09 GMT'
const text = `<rss>${'פרק '.repeat(200)}</rss>`
const bytes = Buffer.from(text, 'utf8')
const XML = 'application/rss+xml; charset=utf-8'
const EDGE_TTL = 'max-age=86400, stale-if-error=86400'
const edge = {'CDN-Cache-Control': EDGE_TTL, 'Surrogate-Control': EDGE_TTL, xkey: 'feed'}
const feed = () => represent(text, () => date, {contentType: XML, headers: {...ACCEPT_RANGES, ...edge}})
// An API document: no Accept-Ranges.
const json = () => represent(JSON.stringify({data: 'פרק'}), () => date, {headers: edge})

const send = (representation: Representation, headers: Record<string, string>, method = 'GET') => {
  const {response, written} = fakeResponse()
  sendRepresentation(
    fakeRequest(method, '/feed.xml', {'accept-encoding': 'identity', ...headers}),
    response,
    representation,
    {
      headers: new ResponseHeaders(['X-Request-Id', 'r']),
    },
  )
  return written
}

const EPOCH = 'Thu, 01 Jan 1970 00:00:00 GMT'
const LATER = 'Fri, 07 May 2027 00:00:00 GMT'

describe('If-Match', () => {
  it('naming other bytes is a bodiless 412 for GET, a GET with Range and HEAD, on the feed and an API document', () => {
    for (const representation of [feed(), json()])
      for (const [method, headers] of [
        ['GET', {'if-match': '"other"'}],
        ['GET', {'if-match': '"other"', range: 'bytes=0-9'}],
        ['HEAD', {'if-match': '"other"'}],
      ] as const) {
        const written = send(representation, headers, method)
        expect(written.status, `${representation.contentType} ${method} ${JSON.stringify(headers)}`).toBe(412)
        expect(written.body).toBeUndefined()
        expect(written.ended).toBe(true)
      }
  })

  it('says what a 412 refused, and that no cache may keep it', () => {
    const representation = feed()
    const written = send(representation, {'if-match': '"other"'})
    expect(written.headerList).toEqual([
      'ETag',
      representation.etag,
      'Last-Modified',
      LAST_MODIFIED,
      'Cache-Control',
      'no-store',
      'Vary',
      'Accept-Encoding',
      'Accept-Ranges',
      'bytes',
      'xkey',
      'feed',
      'X-Request-Id',
      'r',
      'Content-Length',
      '0',
    ])
  })

  it('passes with `*`, the ETag itself or a list that holds it, and the request goes on (200, 206)', () => {
    const representation = feed()
    const {etag} = representation
    for (const ifMatch of ['*', etag, `"a", ${etag}`, `"a",${etag} , W/"b"`]) {
      const whole = send(representation, {'if-match': ifMatch})
      expect(whole.status, ifMatch).toBe(200)
      expect(whole.headers['cache-control']).toBe(CACHE_CONTROL)
      expect(whole.body?.equals(bytes)).toBe(true)
      const part = send(representation, {'if-match': ifMatch, range: 'bytes=0-9'})
      expect(part.status, ifMatch).toBe(206)
      expect(part.body?.equals(bytes.subarray(0, 10))).toBe(true)
    }
  })

  it('compares strongly: the weak form of the ETag never matches', () => {
    const representation = feed()
    expect(send(representation, {'if-match': `W/${representation.etag}`}).status).toBe(412)
    expect(send(representation, {'if-match': `"a", W/${representation.etag}`}).status).toBe(412)
  })

  it('is compared with the ETag of the coding that would be sent', async () => {
    const representation = feed()
    const gzip = await representation.encode('gzip')
    if (!gzip) throw new Error('expected a gzip variant')
    expect(send(representation, {'accept-encoding': 'gzip', 'if-match': representation.etag}).status).toBe(412)
    expect(send(representation, {'accept-encoding': 'gzip', 'if-match': gzip.etag}).status).toBe(200)
  })

  it('comes before If-None-Match: a 412, not a 304', () => {
    const representation = feed()
    const written = send(representation, {'if-match': '"other"', 'if-none-match': representation.etag})
    expect(written.status).toBe(412)
    const revalidated = send(representation, {'if-match': representation.etag, 'if-none-match': representation.etag})
    expect(revalidated.status).toBe(304)
  })
})

describe('If-Unmodified-Since', () => {
  it('before Last-Modified is a 412 for GET, a GET with Range and HEAD, on the feed and an API document', () => {
    for (const representation of [feed(), json()])
      for (const [method, headers] of [
        ['GET', {'if-unmodified-since': EPOCH}],
        ['GET', {'if-unmodified-since': EPOCH, range: 'bytes=0-9'}],
        ['HEAD', {'if-unmodified-since': EPOCH}],
        // A second before, in RFC 850's and asctime's forms, which a recipient must read too.
        ['GET', {'if-unmodified-since': 'Wednesday, 06-May-26 07:08:08 GMT'}],
        ['GET', {'if-unmodified-since': 'Wed May  6 07:08:08 2026'}],
      ] as const) {
        const written = send(representation, headers, method)
        expect(written.status, `${representation.contentType} ${method} ${JSON.stringify(headers)}`).toBe(412)
        expect(written.headers['cache-control']).toBe('no-store')
        expect(written.body).toBeUndefined()
      }
  })

  it('at or after Last-Modified passes', () => {
    for (const since of [LAST_MODIFIED, LATER, 'Wed May  6 07:08:09 2026'])
      expect(send(feed(), {'if-unmodified-since': since}).status, since).toBe(200)
  })

  it('is ignored when it is not an HTTP-date, a list of dates included', () => {
    for (const since of ['1', '1970-01-01', `${EPOCH}, ${EPOCH}`, 'yesterday'])
      expect(send(feed(), {'if-unmodified-since': since}).status, since).toBe(200)
  })

  it('is ignored when If-Match is present (13.2.2): If-Match decides', () => {
    const representation = feed()
    expect(send(representation, {'if-match': representation.etag, 'if-unmodified-since': EPOCH}).status).toBe(200)
    expect(send(representation, {'if-match': '"other"', 'if-unmodified-since': LATER}).status).toBe(412)
  })
})
