// How a representation is written, to responses that record what they are given: the coding
// chosen, the validators, 304s, HEAD, and a chunked body written in bursts as the socket drains.
import {EventEmitter} from 'node:events'
import type {ServerResponse} from 'node:http'
import {gunzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {CACHE_CONTROL, sendRepresentation} from '../../server/http/representation-response.ts'
import {ResponseHeaders} from '../../server/http/response-headers.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {represent} from '../../server/snapshot/representation.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const date = new Date('2026-05-06T07:08:09Z')
const text = JSON.stringify({data: 'פרק '.repeat(300)})
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('the response head', () => {
  it('carries the validators, caching, Vary, the type, the document headers, the request headers, then the length', () => {
    const representation = represent(text, () => date, {headers: {Link: '<x>'}})
    const {response, written} = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/'), response, representation, {
      headers: new ResponseHeaders(['X-Request-Id', 'r']),
    })
    expect(written.status).toBe(200)
    expect(written.headerList).toEqual([
      'ETag',
      representation.etag,
      'Last-Modified',
      'Wed, 06 May 2026 07:08:09 GMT',
      'Cache-Control',
      'public, max-age=60, stale-while-revalidate=300, stale-if-error=86400',
      'Vary',
      'Accept-Encoding',
      'Content-Type',
      'application/json; charset=utf-8',
      'Link',
      '<x>',
      'X-Request-Id',
      'r',
      'Content-Length',
      String(Buffer.byteLength(text)),
    ])
    expect(CACHE_CONTROL).toBe('public, max-age=60, stale-while-revalidate=300, stale-if-error=86400')
    expect(written.body?.toString()).toBe(text)
  })

  it('sends the same head twice for the same variant, and the request headers of each request', () => {
    const representation = represent(text, () => date)
    const first = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/'), first.response, representation, {
      headers: new ResponseHeaders(['X-Request-Id', '1']),
    })
    const second = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/'), second.response, representation, {
      headers: new ResponseHeaders(['X-Request-Id', '2']),
    })
    const withoutRequestId = (list: readonly string[]) =>
      list.filter((entry, index) => entry !== 'X-Request-Id' && list[index - 1] !== 'X-Request-Id')
    expect(withoutRequestId(second.written.headerList)).toEqual(withoutRequestId(first.written.headerList))
    expect(second.written.headers['x-request-id']).toBe('2')
  })
})

describe('content codings', () => {
  it('sends a compressed variant once it is ready, with its own ETag and Content-Encoding', async () => {
    const representation = represent(text, () => date)
    const {response, written} = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/', {'accept-encoding': 'gzip'}), response, representation)
    expect(written.status, 'compressed on first request: not yet').toBeUndefined()
    await representation.encode('gzip')
    await settle()
    expect(written.status).toBe(200)
    expect(written.headers['content-encoding']).toBe('gzip')
    expect(written.headers.etag).toBe(`${representation.etag.slice(0, -1)}-gzip"`)
    expect(Number(written.headers['content-length'])).toBe(written.body?.length)
    expect(gunzipSync(written.body ?? Buffer.alloc(0)).toString()).toBe(text)
    const again = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/', {'accept-encoding': 'gzip'}), again.response, representation)
    expect(again.written.status, 'ready: written at once').toBe(200)
    expect(again.written.headers['content-encoding']).toBe('gzip')
  })

  it('sends identity without Content-Encoding when the client takes none, or compression would not make it smaller', async () => {
    const representation = represent('{}', () => date)
    await representation.precompress()
    for (const acceptEncoding of [undefined, 'gzip', 'br;q=1, gzip;q=0.5']) {
      const {response, written} = fakeResponse()
      sendRepresentation(
        fakeRequest('GET', '/', acceptEncoding === undefined ? {} : {'accept-encoding': acceptEncoding}),
        response,
        representation,
      )
      expect(written.status, acceptEncoding).toBe(200)
      expect(written.headers['content-encoding'], acceptEncoding).toBeUndefined()
      expect(written.headers.etag, acceptEncoding).toBe(representation.etag)
      expect(written.body?.toString(), acceptEncoding).toBe('{}')
    }
  })

  it('sends identity when compressing fails', async () => {
    const failing = {
      get: () => undefined,
      set: (): unknown => {
        throw new Error('store failed')
      },
    }
    const representation = represent(text, () => date, {variants: failing})
    const {response, written} = fakeResponse()
    sendRepresentation(fakeRequest('GET', '/', {'accept-encoding': 'br'}), response, representation)
    await representation.encode('br').catch(() => undefined)
    await settle()
    expect(written.status).toBe(200)
    expect(written.headers['content-encoding']).toBeUndefined()
    expect(written.body?.toString()).toBe(text)
  })
})

describe('conditional requests', () => {
  const representation = represent(text, () => date, {headers: {Link: '<x>'}})
  const send = (headers: Record<string, string>, method = 'GET') => {
    const {response, written} = fakeResponse()
    sendRepresentation(fakeRequest(method, '/', headers), response, representation, {
      headers: new ResponseHeaders(['X-Request-Id', 'r']),
    })
    return written
  }

  it('answers a finished 304 without a body or content headers to a matching ETag, in a list, or *', () => {
    for (const ifNoneMatch of [
      representation.etag,
      `"other", ${representation.etag}`,
      `W/${representation.etag}`,
      '*',
    ]) {
      const written = send({'if-none-match': ifNoneMatch})
      expect(written.status, ifNoneMatch).toBe(304)
      expect(written.body, ifNoneMatch).toBeUndefined()
      expect(written.ended, ifNoneMatch).toBe(true)
      expect(written.headerList, ifNoneMatch).toEqual([
        'ETag',
        representation.etag,
        'Last-Modified',
        representation.lastModifiedHeader,
        'Cache-Control',
        CACHE_CONTROL,
        'Vary',
        'Accept-Encoding',
        'Link',
        '<x>',
        'X-Request-Id',
        'r',
      ])
    }
  })

  it('answers 200 to another ETag, even with a later If-Modified-Since', () => {
    expect(send({'if-none-match': '"other"', 'if-modified-since': 'Thu, 01 Jan 2099 00:00:00 GMT'}).status).toBe(200)
  })

  it('answers If-Modified-Since by the date when there is no If-None-Match', () => {
    expect(send({'if-modified-since': 'Wed, 06 May 2026 07:08:09 GMT'}).status).toBe(304)
    expect(send({'if-modified-since': 'Wed, 06 May 2026 07:08:08 GMT'}).status).toBe(200)
  })

  it('evaluates the validators even when the request says no-cache', () => {
    expect(send({'if-none-match': representation.etag, 'cache-control': 'no-cache'}).status).toBe(304)
  })

  it('answers HEAD with the head of GET and no body', () => {
    const head = send({}, 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(text)))
    expect(head.ended).toBe(true)
    expect(head.body).toBeUndefined()
  })
})

/** A response whose socket takes `room` writes before it pushes back. */
function drainingResponse(room: number) {
  const writes: Buffer[] = []
  const calls: string[] = []
  let sinceDrain = 0
  const emitter = new EventEmitter()
  const response = Object.assign(emitter, {
    writeHead: () => response,
    cork: () => void calls.push('cork'),
    uncork: () => void calls.push('uncork'),
    write: (chunk: Buffer) => {
      writes.push(chunk)
      calls.push('write')
      sinceDrain += 1
      return sinceDrain < room
    },
    end: () => void calls.push('end'),
    drain: () => {
      sinceDrain = 0
      emitter.emit('drain')
    },
  })
  // The one cast: the writer uses these members of a ServerResponse, and the test drives the rest.
  return {response, served: response as unknown as ServerResponse, writes, calls}
}

describe('a body kept in its chunks', () => {
  const chunks = ['a', 'b', 'c', 'd', 'e'].map((letter) => Buffer.from(letter))
  const representation = represent(new ChunkedBody(chunks, 0), () => date)

  it('is written a burst at a time, each corked, waiting for drain, then ended', () => {
    const {response, served, writes, calls} = drainingResponse(2)
    sendRepresentation(fakeRequest('GET', '/'), served, representation)
    expect(calls).toEqual(['cork', 'write', 'write', 'uncork'])
    response.drain()
    expect(calls.slice(4)).toEqual(['cork', 'write', 'write', 'uncork'])
    response.drain()
    expect(calls.slice(8)).toEqual(['cork', 'write', 'uncork', 'end'])
    expect(Buffer.concat(writes).toString()).toBe('abcde')
    expect(response.listenerCount('close'), 'done: no listener left').toBe(0)
    expect(response.listenerCount('drain')).toBe(0)
  })

  it('is written in one burst when the socket takes it all', () => {
    const {served, calls} = drainingResponse(100)
    sendRepresentation(fakeRequest('GET', '/'), served, representation)
    expect(calls).toEqual(['cork', 'write', 'write', 'write', 'write', 'write', 'uncork', 'end'])
  })

  it('stops when the response closes first', () => {
    const {response, served, writes, calls} = drainingResponse(2)
    sendRepresentation(fakeRequest('GET', '/'), served, representation)
    response.emit('close')
    response.drain()
    expect(writes).toHaveLength(2)
    expect(calls).not.toContain('end')
    expect(response.listenerCount('drain')).toBe(0)
  })

  it('is written whole when it was joined', () => {
    const {response, written} = fakeResponse()
    sendRepresentation(
      fakeRequest('GET', '/'),
      response,
      represent(new ChunkedBody(chunks), () => date),
    )
    expect(written.body?.toString()).toBe('abcde')
  })
})
