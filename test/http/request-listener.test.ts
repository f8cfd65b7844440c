// The request listener's decisions, with a fast path, an application and a rate limiter the test
// makes up, written to responses that record what they are given.
import type {IncomingMessage, ServerResponse} from 'node:http'
import {describe, expect, it} from 'vitest'
import {
  createRequestListener,
  EXPOSED_HEADERS,
  MAX_URL_LENGTH,
  PREFLIGHT_HEADERS,
  type RequestListenerParts,
} from '../../server/http/request-listener.ts'
import {pathOf} from '../../server/http/request-target.ts'
import {fixedHeaders, type ResponseHeaders} from '../../server/http/response-headers.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'
const CORS = {'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS}
// The head every response carries, in the order the listener writes it.
const SHARED_HEAD = [
  'X-Content-Type-Options',
  'nosniff',
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  EXPOSED_HEADERS,
]

/** A listener whose fast path answers /fast, and whose application answers everything else 299. */
function listener(parts: Partial<RequestListenerParts> = {}) {
  const seen: {fastHeaders?: string[]; application: string[]; errors: unknown[]; observed: string[]} = {
    application: [],
    errors: [],
    observed: [],
  }
  const handle = createRequestListener({
    fastPath: (request, response, headers) => {
      if (!request.url?.startsWith('/api/v1/fast') && request.url !== '/fast') return false
      seen.fastHeaders = headers.list()
      response.writeHead(200, seen.fastHeaders).end('fast')
      return true
    },
    application: (request, response) => {
      seen.application.push(request.url ?? '')
      response.writeHead(299).end()
    },
    publicBaseUrl: BASE,
    onError: (error) => void seen.errors.push(error),
    ...parts,
  })
  const send = (method: string, url: string, headers: Record<string, string> = {}) => {
    const {response, written} = fakeResponse()
    handle(fakeRequest(method, url, {'x-request-id': 'req-1', ...headers}), response)
    return written
  }
  return {send, seen}
}

describe('every response', () => {
  it('carries nosniff, CORS and the request id, to the fast path and to the application', () => {
    const {send, seen} = listener()
    const fast = send('GET', '/fast')
    expect(fast.status).toBe(200)
    expect(seen.fastHeaders).toEqual([...SHARED_HEAD, 'X-Request-Id', 'req-1'])
    const slow = send('GET', '/other?x')
    expect(slow.status).toBe(299)
    expect(slow.headers).toEqual({'x-content-type-options': 'nosniff', ...CORS, 'x-request-id': 'req-1'})
    expect(seen.application).toEqual(['/other?x'])
  })

  it('carries no CORS on the MCP endpoint', () => {
    const {send} = listener()
    expect(send('POST', '/mcp?session=1').headers).toEqual({
      'x-content-type-options': 'nosniff',
      'x-request-id': 'req-1',
    })
  })

  it('exposes the headers a browser client needs', () => {
    expect(EXPOSED_HEADERS).toBe(
      'ETag, Last-Modified, Link, RateLimit, RateLimit-Policy, Retry-After, Deprecation, Sunset',
    )
  })
})

describe('long URLs', () => {
  it('answers a URL over 2048 bytes 414, citing its start', () => {
    const {send, seen} = listener()
    expect(MAX_URL_LENGTH).toBe(2048)
    const url = `/${'a'.repeat(2047)}`
    expect(send('GET', url).status).toBe(299)
    const refused = send('GET', `${url}b`)
    expect(refused.status).toBe(414)
    expect(refused.headers['x-request-id']).toBe('req-1')
    expect(JSON.parse(String(refused.body))).toMatchObject({
      status: 414,
      detail: 'The URL is longer than 2048 bytes.',
      instance: url.slice(0, 200),
    })
    expect(seen.application).toHaveLength(1)
  })
})

describe('CORS preflight', () => {
  it('answers an OPTIONS request with an Origin and a requested method 204 with the allowed methods and headers', () => {
    const {send, seen} = listener()
    const preflight = send('OPTIONS', '/api/v1/index.json', {
      origin: 'https://example.com',
      'access-control-request-method': 'GET',
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headerList).toEqual([
      ...SHARED_HEAD,
      'Access-Control-Allow-Methods',
      'GET, HEAD',
      'Access-Control-Allow-Headers',
      'If-None-Match, If-Modified-Since, Cache-Control',
      'Access-Control-Max-Age',
      '86400',
      'X-Request-Id',
      'req-1',
    ])
    expect(PREFLIGHT_HEADERS).toHaveLength(3)
    expect(preflight.ended).toBe(true)
    expect(seen.application).toEqual([])
  })

  it('passes on an OPTIONS request that is not a preflight, and any on the MCP endpoint', () => {
    const {send, seen} = listener()
    expect(send('OPTIONS', '/a', {origin: 'https://example.com'}).status).toBe(299)
    expect(send('OPTIONS', '/b', {'access-control-request-method': 'GET'}).status).toBe(299)
    expect(send('GET', '/c', {origin: 'https://example.com', 'access-control-request-method': 'GET'}).status).toBe(299)
    expect(
      send('OPTIONS', '/mcp', {origin: 'https://example.com', 'access-control-request-method': 'POST'}).status,
    ).toBe(299)
    expect(seen.application).toEqual(['/a', '/b', '/c', '/mcp'])
  })
})

describe('rate limiting', () => {
  const limiterSaying = (answer: boolean | Promise<boolean>, calls: string[]) => ({
    policy: fixedHeaders(['RateLimit-Policy', 'p']),
    count: (request: IncomingMessage, response: ServerResponse, headers: ResponseHeaders) => {
      calls.push(request.url ?? '')
      headers.add('RateLimit', 'r')
      if (answer === false) response.writeHead(429).end()
      return answer
    },
  })

  it('asks the limiter first and answers only what it allows, with its headers', () => {
    const calls: string[] = []
    const allowed = listener({rateLimiter: limiterSaying(true, calls)})
    expect(allowed.send('GET', '/x').headers.ratelimit).toBe('r')
    expect(allowed.seen.application).toEqual(['/x'])
    const refused = listener({rateLimiter: limiterSaying(false, calls)})
    expect(refused.send('GET', '/x').status).toBe(429)
    expect(refused.seen.application).toEqual([])
    expect(calls).toEqual(['/x', '/x'])
  })

  it('does not limit the unlimited paths', () => {
    const calls: string[] = []
    const {send, seen} = listener({rateLimiter: limiterSaying(false, calls), unlimitedPaths: ['/webhooks/sanity']})
    expect(send('POST', '/webhooks/sanity?x=1').status).toBe(299)
    expect(send('POST', '/webhooks/sanity/more').status).toBe(429)
    expect(calls).toEqual(['/webhooks/sanity/more'])
    expect(seen.application).toEqual(['/webhooks/sanity?x=1'])
  })

  it('waits for a limiter that answers later, and lets the request through when the limiter fails', async () => {
    const calls: string[] = []
    const later = listener({rateLimiter: limiterSaying(Promise.resolve(true), calls)})
    const written = later.send('GET', '/later')
    expect(written.status).toBeUndefined()
    await Promise.resolve()
    await Promise.resolve()
    expect(written.status).toBe(299)
    const no = listener({rateLimiter: limiterSaying(Promise.resolve(false), calls)})
    no.send('GET', '/no')
    await new Promise((resolve) => setImmediate(resolve))
    expect(no.seen.application).toEqual([])
    const failing = listener({rateLimiter: limiterSaying(Promise.reject(new Error('store down')), calls)})
    failing.send('GET', '/failing')
    await new Promise((resolve) => setImmediate(resolve))
    expect(failing.seen.application).toEqual(['/failing'])
  })
})

describe('the version lifecycle', () => {
  const lifecycle = {
    deprecation: new Date('2027-01-01T00:00:00Z'),
    sunset: new Date('2027-07-01T00:00:00Z'),
    successorUrl: 'http://api.test/api/v2/index.json',
  }

  it('adds the deprecation headers to v1 responses only, fast path and application alike', () => {
    const {send, seen} = listener({lifecycle, clock: () => new Date('2027-03-01T00:00:00Z')})
    send('GET', '/api/v1/fast')
    expect(seen.fastHeaders?.slice(-8, -2)).toEqual([
      'Deprecation',
      '@1798761600',
      'Sunset',
      'Thu, 01 Jul 2027 00:00:00 GMT',
      'Link',
      '<http://api.test/api/v2/index.json>; rel="successor-version"',
    ])
    expect(send('GET', '/api/v1').headers.deprecation).toBe('@1798761600')
    expect(send('GET', '/api/v1/episodes.json').headers.sunset).toBe('Thu, 01 Jul 2027 00:00:00 GMT')
    expect(send('GET', '/api/v10/x').headers.deprecation).toBeUndefined()
    expect(send('GET', '/feed.xml').headers.deprecation).toBeUndefined()
  })

  it('answers v1 410 from the sunset on, and leaves other paths alone', () => {
    const {send, seen} = listener({lifecycle, clock: () => new Date('2027-07-01T00:00:00Z')})
    const retired = send('GET', '/api/v1/episodes.json')
    expect(retired.status).toBe(410)
    expect(retired.headers['x-request-id']).toBe('req-1')
    expect(send('GET', '/api/v1').status).toBe(410)
    expect(send('GET', '/feed.xml').status).toBe(299)
    expect(seen.application).toEqual(['/feed.xml'])
  })

  it('adds nothing without a lifecycle', () => {
    const {send} = listener()
    expect(send('GET', '/api/v1/x').headers.deprecation).toBeUndefined()
  })
})

describe('a fast path that throws', () => {
  it('reports the error and answers 500 with the request headers', () => {
    const {send, seen} = listener({
      fastPath: () => {
        throw new Error('boom')
      },
    })
    const failed = send('GET', '/x')
    expect(seen.errors).toEqual([new Error('boom')])
    expect(failed.status).toBe(500)
    expect(failed.headers['x-request-id']).toBe('req-1')
    expect(JSON.parse(String(failed.body))).toMatchObject({
      status: 500,
      instance: '/x',
      detail: 'The server failed to answer. The payload is static, so a retry with backoff is safe.',
    })
    expect(seen.application).toEqual([])
  })

  it('writes nothing more when the headers were already sent', () => {
    const {send, seen} = listener({
      fastPath: (_request, response) => {
        response.writeHead(200)
        throw new Error('late')
      },
    })
    expect(send('GET', '/x').status).toBe(200)
    expect(seen.errors).toHaveLength(1)
  })
})

describe('the observer', () => {
  it('sees each response once it closes, with the id, the URL as received, and when it started', () => {
    const observed: {url: string; id: string; startedAt: number; socketBytesBefore: number; completed: boolean}[] = []
    const handle = createRequestListener({
      fastPath: () => false,
      application: (request, response) => {
        request.url = '/rewritten'
        response.writeHead(204)
      },
      observe: (_request, _response, answered) => void observed.push(answered),
      publicBaseUrl: BASE,
      onError: () => undefined,
    })
    const {response} = fakeResponse()
    const request = fakeRequest('GET', '/original', {'x-request-id': 'abc'})
    // What the connection wrote before this request (keep-alive): a socket that never connected wrote nothing.
    Object.defineProperty(request.socket, 'bytesWritten', {value: 321})
    const before = performance.now()
    handle(request, response)
    expect(observed).toEqual([])
    response.end()
    expect(observed).toEqual([
      {id: 'abc', url: '/original', startedAt: expect.any(Number), socketBytesBefore: 321, completed: true},
    ])
    expect(observed[0]?.startedAt).toBeGreaterThanOrEqual(before)
  })
})

describe('pathOf', () => {
  it('is the target without its query', () => {
    expect(pathOf('/a/b?c=d?e')).toBe('/a/b')
    expect(pathOf('/a/b')).toBe('/a/b')
    expect(pathOf('?x')).toBe('')
  })
})

describe('the rate-limit policy and the version lifecycle, by default', () => {
  it('gives a limited response the shared headers and the policy, after CORS', () => {
    const {send, seen} = listener({
      rateLimiter: {policy: fixedHeaders(['RateLimit-Policy', 'p']), count: () => true},
    })
    send('GET', '/fast')
    expect(seen.fastHeaders).toEqual([...SHARED_HEAD, 'RateLimit-Policy', 'p', 'X-Request-Id', 'req-1'])
  })

  it('retires v1 by the real clock when given none', () => {
    const {send} = listener({
      lifecycle: {
        deprecation: new Date('2000-01-01T00:00:00Z'),
        sunset: new Date('2000-07-01T00:00:00Z'),
        successorUrl: 'http://api.test/api/v2/index.json',
      },
    })
    expect(send('GET', '/api/v1/episodes.json').status).toBe(410)
  })
})

describe('the observer, when it sees a response', () => {
  type Answered = {completed: boolean}
  const observing = (parts: Partial<RequestListenerParts>) => {
    const observed: Answered[] = []
    const handle = createRequestListener({
      fastPath: () => false,
      application: () => undefined,
      observe: (_request, _response, answered) => void observed.push({completed: answered.completed}),
      publicBaseUrl: BASE,
      onError: () => undefined,
      ...parts,
    })
    return {handle, observed}
  }
  /** A response as Node leaves it: ended, with a socket or not, with nothing queued. */
  const ended = (response: ServerResponse, socket: object | null) =>
    Object.assign(response, {writableEnded: true, socket, writableLength: 0})

  it('sees at once a response handed to its socket in full', () => {
    const {handle, observed} = observing({
      fastPath: (_request, response) => {
        response.writeHead(200).end('x')
        ended(response, {})
        return true
      },
    })
    handle(fakeRequest('GET', '/fast'), fakeResponse().response)
    expect(observed).toEqual([{completed: true}])
  })

  it('waits for close for an ended response that has no socket yet (pipelined)', () => {
    const {handle, observed} = observing({
      fastPath: (_request, response) => {
        response.writeHead(200)
        ended(response, null)
        return true
      },
    })
    const {response} = fakeResponse()
    handle(fakeRequest('GET', '/fast'), response)
    expect(observed).toEqual([])
    response.end()
    expect(observed).toEqual([{completed: true}])
  })

  it('sees at once, not measured, a response whose head is written, for an observer that is not timed', () => {
    const {handle, observed} = observing({
      timed: false,
      fastPath: (_request, response) => {
        response.writeHead(200)
        return true
      },
    })
    handle(fakeRequest('GET', '/fast'), fakeResponse().response)
    expect(observed).toEqual([{completed: false}])
  })

  it('never sees the unobserved paths', () => {
    const {handle, observed} = observing({unobservedPaths: ['/health']})
    const {response} = fakeResponse()
    handle(fakeRequest('GET', '/health?probe=1'), response)
    response.end()
    expect(observed).toEqual([])
  })
})
