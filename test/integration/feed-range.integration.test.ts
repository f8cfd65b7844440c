// Integration: range requests on /feed.xml over real HTTP (a server on a loopback port, raw
// HTTP/1.1 requests with exactly the headers given). A range is of the selected coding's bytes, as
// nginx serves a pre-compressed static file.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {rawRequest, type RawResponse} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../helpers/server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({})
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

  it('answers a range past the end with a bodiless 416 that names the length', async () => {
    const full = await whole(coding)
    const refused = await feed({'accept-encoding': coding, range: `bytes=${full.body.length}-`})
    expect(refused.status).toBe(416)
    expect(refused.headers['content-range']).toBe(`bytes */${full.body.length}`)
    expect(refused.body.length).toBe(0)
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

  it('answers several ranges, a malformed one or another unit with the whole 200', async () => {
    const full = await whole(coding)
    for (const range of ['bytes=0-9,50-59', 'bytes=abc', 'items=0-9']) {
      const response = await feed({'accept-encoding': coding, range})
      expect(response.status, range).toBe(200)
      expect(response.body.equals(full.body), range).toBe(true)
    }
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

describe('Range elsewhere', () => {
  it('is not taken by the JSON documents, which answer with the whole 200 and no Accept-Ranges', async () => {
    const full = await rawRequest(`${server.baseUrl}/api/v1/index.json`)
    const ranged = await rawRequest(`${server.baseUrl}/api/v1/index.json`, {headers: {range: 'bytes=0-9'}})
    expect(ranged.status).toBe(200)
    expect(ranged.headers['accept-ranges']).toBeUndefined()
    expect(ranged.body.equals(full.body)).toBe(true)
  })
})
