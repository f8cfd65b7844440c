// Integration: range requests and preconditions on /feed.xml over real HTTP (a server on a
// loopback port, configured for Fastly so documents carry the edge TTL; raw HTTP/1.1 requests with
// exactly the headers given). A range is of the selected coding's bytes, as nginx serves a
// pre-compressed static file.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {rawRequest, type RawResponse} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
beforeAll(async () => {
  // No purge is sent: nothing is published while the tests run.
  server = await startTestServer({
    environment: {CDN_PURGE: 'fastly', FASTLY_API_TOKEN: 'token', FASTLY_SERVICE_ID: 'service1'},
  })
})
afterAll(() => server.close())

const feed = (headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(`${server.baseUrl}/feed.xml`, {method, headers})

const CODINGS = ['identity', 'gzip', 'br'] as const

/** The whole variant in `coding`, as a 200 sends it. */
async function whole(coding: (typeof CODINGS)[number]): Promise<RawResponse> {
  const response = await feed({'accept-encoding': coding})
  expect(response.status).toBe(200)
  expect(response.headers['content-encoding']).toBe(coding === 'identity' ? undefined : coding)
  return response
}

describe.each(CODINGS)('Range on /feed.xml, %s', (coding) => {
  it('says Accept-Ranges: bytes on the 200, and bytes=0-99 gives 206 with exactly those bytes', async () => {
    const full = await whole(coding)
    expect(full.headers['accept-ranges']).toBe('bytes')
    const part = await feed({'accept-encoding': coding, range: 'bytes=0-99'})
    expect(part.status).toBe(206)
    expect(part.headers['content-range']).toBe(`bytes 0-99/${full.body.length}`)
    expect(part.headers['content-length']).toBe('100')
    expect(part.headers['content-encoding']).toBe(full.headers['content-encoding'])
    expect(part.headers.etag).toBe(full.headers.etag)
    expect(part.headers['accept-ranges']).toBe('bytes')
    expect(part.body.equals(full.body.subarray(0, 100))).toBe(true)
  })

  it('gives the last bytes for a suffix range', async () => {
    const full = await whole(coding)
    const part = await feed({'accept-encoding': coding, range: 'bytes=-500'})
    expect(part.status).toBe(206)
    const length = full.body.length
    expect(part.headers['content-range']).toBe(`bytes ${length - 500}-${length - 1}/${length}`)
    expect(part.body.equals(full.body.subarray(length - 500))).toBe(true)
  })

  it('gives all the bytes as a 206 for a suffix longer than the document', async () => {
    const full = await whole(coding)
    const length = full.body.length
    for (const range of [`bytes=-${length}`, `bytes=-${length + 1}`, 'bytes=-1000000']) {
      const part = await feed({'accept-encoding': coding, range})
      expect(part.status, range).toBe(206)
      expect(part.headers['content-range']).toBe(`bytes 0-${length - 1}/${length}`)
      expect(part.headers['content-length']).toBe(String(length))
      expect(part.headers['content-encoding']).toBe(full.headers['content-encoding'])
      expect(part.body.equals(full.body)).toBe(true)
    }
  })

  it('answers a range past the end with a bodiless 416 that names the length', async () => {
    const full = await whole(coding)
    const refused = await feed({'accept-encoding': coding, range: `bytes=${full.body.length}-`})
    expect(refused.status).toBe(416)
    expect(refused.headers['content-range']).toBe(`bytes */${full.body.length}`)
    expect(refused.body.length).toBe(0)
  })

  it('lets no cache keep a 206 or 416, while the 200 keeps its public and edge lifetimes', async () => {
    const full = await whole(coding)
    expect(full.headers['cache-control']).toMatch(/^public, max-age=60/)
    expect(full.headers['cdn-cache-control']).toMatch(/^max-age=86400/)
    expect(full.headers['surrogate-control']).toMatch(/^max-age=86400/)
    for (const range of ['bytes=0-99', `bytes=${full.body.length}-`]) {
      const response = await feed({'accept-encoding': coding, range})
      expect([206, 416], range).toContain(response.status)
      expect(response.headers['cache-control'], range).toBe('no-store')
      expect(response.headers['cdn-cache-control'], range).toBeUndefined()
      expect(response.headers['surrogate-control'], range).toBeUndefined()
      expect(response.headers.etag).toBe(full.headers.etag)
      expect(response.headers['last-modified']).toBe(full.headers['last-modified'])
      expect(response.headers.vary).toBe('Accept-Encoding')
      expect(response.headers['accept-ranges']).toBe('bytes')
    }
  })

  it('takes If-Range with the strong ETag of this coding, and sends the whole for any other', async () => {
    const full = await whole(coding)
    const etag = String(full.headers.etag)
    const matching = await feed({'accept-encoding': coding, range: 'bytes=10-19', 'if-range': etag})
    expect(matching.status).toBe(206)
    expect(matching.body.equals(full.body.subarray(10, 20))).toBe(true)
    for (const other of ['"something-else"', `W/${etag}`]) {
      const changed = await feed({'accept-encoding': coding, range: 'bytes=10-19', 'if-range': other})
      expect(changed.status).toBe(200)
      expect(changed.body.equals(full.body)).toBe(true)
    }
  })

  it('answers several ranges (overlapping or repeated too), an invalid, a malformed one or another unit with the whole 200', async () => {
    const full = await whole(coding)
    for (const range of [
      'bytes=0-9,50-59',
      'bytes=0-50,25-75',
      'bytes=0-9,0-9',
      'bytes=5-4',
      'bytes=abc',
      'items=0-9',
    ]) {
      const response = await feed({'accept-encoding': coding, range})
      expect(response.status, range).toBe(200)
      expect(response.body.equals(full.body), range).toBe(true)
    }
  })

  it('answers If-Match naming other bytes with a bodiless 412 that no cache keeps: GET, with Range, HEAD', async () => {
    const full = await whole(coding)
    for (const [method, headers] of [
      ['GET', {'if-match': '"other"'}],
      ['GET', {'if-match': '"other"', range: 'bytes=0-99'}],
      ['GET', {'if-match': `W/${String(full.headers.etag)}`, range: 'bytes=0-99'}],
      ['HEAD', {'if-match': '"other"'}],
    ] as const) {
      const refused = await feed({'accept-encoding': coding, ...headers}, method)
      expect(refused.status, `${method} ${JSON.stringify(headers)}`).toBe(412)
      expect(refused.headers['content-length']).toBe('0')
      expect(refused.headers['cache-control']).toBe('no-store')
      expect(refused.headers['surrogate-control']).toBeUndefined()
      expect(refused.headers.etag).toBe(full.headers.etag)
      expect(refused.body.length).toBe(0)
    }
  })

  it('takes a range under If-Match with *, the ETag, or a list that holds it', async () => {
    const full = await whole(coding)
    const etag = String(full.headers.etag)
    for (const ifMatch of ['*', etag, `"other", ${etag}`]) {
      const part = await feed({'accept-encoding': coding, range: 'bytes=0-99', 'if-match': ifMatch})
      expect(part.status, ifMatch).toBe(206)
      expect(part.body.equals(full.body.subarray(0, 100))).toBe(true)
    }
  })

  it('answers If-Unmodified-Since before Last-Modified with 412, and one after it as if absent', async () => {
    const full = await whole(coding)
    const epoch = 'Thu, 01 Jan 1970 00:00:00 GMT'
    for (const [method, headers] of [
      ['GET', {'if-unmodified-since': epoch}],
      ['GET', {'if-unmodified-since': epoch, range: 'bytes=0-99'}],
      ['HEAD', {'if-unmodified-since': epoch}],
    ] as const) {
      const refused = await feed({'accept-encoding': coding, ...headers}, method)
      expect(refused.status, `${method} ${JSON.stringify(headers)}`).toBe(412)
      expect(refused.body.length).toBe(0)
    }
    const later = await feed({'accept-encoding': coding, 'if-unmodified-since': String(full.headers['last-modified'])})
    expect(later.status).toBe(200)
    expect(later.body.equals(full.body)).toBe(true)
  })

  it('keeps 304 and HEAD as they are', async () => {
    const full = await whole(coding)
    const etag = String(full.headers.etag)
    const revalidated = await feed({'accept-encoding': coding, range: 'bytes=0-99', 'if-none-match': etag})
    expect(revalidated.status).toBe(304)
    expect(revalidated.headers['content-range']).toBeUndefined()
    expect(revalidated.body.length).toBe(0)
    const head = await feed({'accept-encoding': coding, range: 'bytes=0-99'}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe(String(full.body.length))
    expect(head.headers['accept-ranges']).toBe('bytes')
    expect(head.body.length).toBe(0)
  })
})

describe('Preconditions on the API documents', () => {
  it('are evaluated as on the feed: 412 for If-Match naming other bytes or an early If-Unmodified-Since', async () => {
    const url = `${server.baseUrl}/api/v1/index.json`
    const full = await rawRequest(url)
    expect(full.status).toBe(200)
    for (const method of ['GET', 'HEAD']) {
      const preconditions: Record<string, string>[] = [
        {'if-match': '"other"'},
        {'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT'},
      ]
      for (const headers of preconditions) {
        const refused = await rawRequest(url, {method, headers})
        expect(refused.status, `${method} ${JSON.stringify(headers)}`).toBe(412)
        expect(refused.headers['cache-control']).toBe('no-store')
        expect(refused.body.length).toBe(0)
      }
      const passed = await rawRequest(url, {method, headers: {'if-match': String(full.headers.etag)}})
      expect(passed.status, method).toBe(200)
      expect(passed.headers['content-length']).toBe(full.headers['content-length'])
    }
  })
})

describe('Range elsewhere', () => {
  it('is not taken by the JSON documents, which answer with the whole 200 and no Accept-Ranges', async () => {
    const full = await rawRequest(`${server.baseUrl}/api/v1/index.json`)
    const ranged = await rawRequest(`${server.baseUrl}/api/v1/index.json`, {headers: {range: 'bytes=0-9'}})
    expect(ranged.status).toBe(200)
    expect(ranged.headers['accept-ranges']).toBeUndefined()
    expect(ranged.body.equals(full.body)).toBe(true)
  })
})
