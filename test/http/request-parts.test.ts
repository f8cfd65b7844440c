// Small pieces of the request path on their own: request ids, client addresses and rate-limit keys,
// and the rate limiter over stores the test controls. No server.
import {validateHeaderValue, type IncomingMessage, type ServerResponse} from 'node:http'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {clientAddressResolver, rateLimitKey, trustedProxyTest} from '../../server/http/client-address.ts'
import {ResponseHeaders} from '../../server/http/response-headers.ts'
import {createRateLimiter, type CounterStore, type RateLimiter} from '../../server/http/rate-limit.ts'
import {requestIdSource} from '../../server/http/request-id.ts'
import {WindowCounter} from '../../server/http/window-counter.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'

describe('request ids', () => {
  it('keeps an id a proxy gave the request when it looks like one', () => {
    const next = requestIdSource()
    for (const id of ['abc-123', 'a.b:c@d/e+f=g_h', 'x'.repeat(128)])
      expect(next(fakeRequest('GET', '/', {'x-request-id': id}))).toBe(id)
  })

  it('makes its own for a missing, empty, too long or odd one: a per-process prefix and a base-36 sequence', () => {
    const next = requestIdSource()
    const made = ['', 'x'.repeat(129), 'a b', 'é', undefined].map((id) =>
      next(fakeRequest('GET', '/', id === undefined ? {} : {'x-request-id': id})),
    )
    const prefix = made[0]?.slice(0, 8)
    expect(prefix).toMatch(/^[\w-]{8}$/)
    expect(made).toEqual([1, 2, 3, 4, 5].map((sequence) => `${prefix}-${sequence.toString(36)}`))
    for (let index = 6; index <= 36; index++) next(fakeRequest('GET', '/'))
    expect(next(fakeRequest('GET', '/'))).toBe(`${prefix}-11`)
    expect(requestIdSource()(fakeRequest('GET', '/')), 'another process, another prefix').not.toBe(`${prefix}-1`)
  })

  it('never keeps one that could break a header line: ids go into the head unchecked', () => {
    const next = requestIdSource()
    for (const hostile of [
      'a\r\nSet-Cookie: b=c',
      'a\nb',
      'a\u0000b',
      'a\u007fb',
      'a\tb',
      'a;b',
      'a"b',
      'a\u00ffb',
      'א',
    ]) {
      const id = next(fakeRequest('GET', '/', {'x-request-id': hostile}))
      expect(id).not.toBe(hostile)
      expect(() => validateHeaderValue('X-Request-Id', id)).not.toThrow()
    }
  })

  it('makes its own for a repeated header', () => {
    const request = fakeRequest('GET', '/')
    request.headers['x-request-id'] = ['a', 'b']
    expect(requestIdSource()(request)).toMatch(/^[\w-]{8}-1$/)
  })
})

describe('client addresses', () => {
  const from = (remoteAddress: string | undefined, forwarded?: string) => {
    const request = fakeRequest('GET', '/', forwarded === undefined ? {} : {'x-forwarded-for': forwarded})
    Object.defineProperty(request.socket, 'remoteAddress', {value: remoteAddress})
    return request
  }

  it('is the peer without trusted proxies, whatever X-Forwarded-For says', () => {
    const resolve = clientAddressResolver(undefined)
    expect(resolve(from('10.0.0.1', '203.0.113.9'))).toBe('10.0.0.1')
    expect(resolve(from(undefined))).toBe('unknown')
  })

  it('walks X-Forwarded-For back through as many hops as are trusted', () => {
    const forwarded = '203.0.113.9, 198.51.100.7'
    expect(clientAddressResolver(0)(from('10.0.0.1', forwarded))).toBe('10.0.0.1')
    expect(clientAddressResolver(1)(from('10.0.0.1', forwarded))).toBe('198.51.100.7')
    expect(clientAddressResolver(2)(from('10.0.0.1', forwarded))).toBe('203.0.113.9')
  })

  it('walks back through the listed proxies only', () => {
    const resolve = clientAddressResolver(['10.0.0.0/8'])
    expect(resolve(from('10.0.0.1', '203.0.113.9, 10.1.1.1'))).toBe('203.0.113.9')
    expect(resolve(from('192.0.2.1', '203.0.113.9'))).toBe('192.0.2.1')
  })

  it('tells a trusted proxy peer: none without TRUST_PROXY, any with a positive hop count, the listed ones otherwise', () => {
    expect(trustedProxyTest(undefined)('10.0.0.1')).toBe(false)
    expect(trustedProxyTest(0)('10.0.0.1')).toBe(false)
    expect(trustedProxyTest(1)('192.0.2.1')).toBe(true)
    expect(trustedProxyTest(['10.0.0.0/8'])('10.2.3.4')).toBe(true)
    expect(trustedProxyTest(['10.0.0.0/8'])('192.0.2.1')).toBe(false)
  })

  it('keys IPv4 clients by address and IPv6 clients by their /56', () => {
    expect(rateLimitKey('192.0.2.1')).toBe('192.0.2.1')
    expect(rateLimitKey('2001:db8:abcd:12ff:1:2:3:4')).toBe('2001:db8:abcd:1200::/56')
    expect(rateLimitKey('2001:db8:abcd:12ff:1:2:3:4'), 'remembered').toBe('2001:db8:abcd:1200::/56')
    expect(rateLimitKey('2001:db8:abcd:1234::1')).toBe(rateLimitKey('2001:db8:abcd:12aa::9'))
  })
})

describe('the rate limiter', () => {
  afterEach(() => vi.useRealTimers())

  const limiter = (store: CounterStore, onStoreError: (error: unknown) => void = () => undefined) =>
    createRateLimiter({
      quota: 2,
      windowSeconds: 60,
      store,
      keyOf: () => 'client',
      publicBaseUrl: BASE,
      onStoreError,
      policyName: 'p',
    })
  // The limiter adds to the response's own list, which the test reads.
  const counting = (limiter: RateLimiter) => (request: IncomingMessage, response: ServerResponse, own: string[]) =>
    limiter.count(request, response, new ResponseHeaders(own))

  it('refuses at start a policy name that could break a header line: RateLimit goes into the head unchecked', () => {
    const options = {
      quota: 2,
      windowSeconds: 60,
      store: new WindowCounter(),
      keyOf: () => 'client',
      publicBaseUrl: BASE,
      onStoreError: () => undefined,
    }
    expect(() => createRateLimiter({...options, policyName: 'p\r\nSet-Cookie: a=b'})).toThrow(/Invalid character/)
  })

  it('tells the store its window, lets the quota through with the draft headers, then answers 429', () => {
    vi.useFakeTimers({now: Date.parse('2026-01-01T00:00:00Z')})
    const counter = new WindowCounter(() => Date.now())
    const limit = counting(limiter(counter))
    const verdicts = [1, 2, 3].map(() => {
      const {response, written} = fakeResponse()
      const headers = ['X-Request-Id', 'r']
      return {allowed: limit(fakeRequest('GET', '/api/v1/index.json'), response, headers), headers, written}
    })
    expect(verdicts.map((verdict) => verdict.allowed)).toEqual([true, true, false])
    expect(verdicts[0]?.headers).toEqual(['X-Request-Id', 'r', 'RateLimit', '"p";r=1;t=60'])
    expect(limiter(counter).policy.list, 'the policy, the same on every response').toEqual([
      'RateLimit-Policy',
      '"p";q=2;w=60',
    ])
    expect(verdicts[1]?.headers.at(-1)).toBe('"p";r=0;t=60')
    expect(verdicts[0]?.written.status).toBeUndefined()
    const refused = verdicts[2]?.written
    expect(refused?.status).toBe(429)
    expect(refused?.headers['retry-after']).toBe('60')
    expect(refused?.headers.ratelimit).toBe('"p";r=0;t=60')
    expect(JSON.parse(String(refused?.body))).toMatchObject({
      status: 429,
      instance: '/api/v1/index.json',
      detail:
        'More than 2 requests in 60 seconds from one client. Retry after 60 seconds; the CDN serves cached copies meanwhile.',
    })
    // The window was set from windowSeconds: 61 s later the client starts again.
    vi.setSystemTime(Date.parse('2026-01-01T00:01:01Z'))
    expect(limit(fakeRequest('GET', '/'), fakeResponse().response, [])).toBe(true)
  })

  it('counts down the seconds to the reset, rounding up, and never tells a client to wait less than a second', () => {
    vi.useFakeTimers({now: 1_000_000})
    let resetTime: Date | undefined = new Date(1_000_000 + 12_300)
    const store = {increment: () => ({totalHits: 3, resetTime})}
    const headers: string[] = []
    const {response, written} = fakeResponse()
    expect(counting(limiter(store))(fakeRequest('GET', '/'), response, headers)).toBe(false)
    expect(headers.at(-1)).toBe('"p";r=0;t=13')
    expect(written.headers['retry-after']).toBe('13')
    resetTime = new Date(1_000_000 - 5000)
    const late = fakeResponse()
    const lateHeaders: string[] = []
    expect(counting(limiter(store))(fakeRequest('GET', '/'), late.response, lateHeaders)).toBe(false)
    expect(lateHeaders.at(-1)).toBe('"p";r=0;t=0')
    expect(late.written.headers['retry-after']).toBe('1')
    resetTime = undefined
    const unknown: string[] = []
    expect(counting(limiter(store))(fakeRequest('GET', '/'), fakeResponse().response, unknown)).toBe(false)
    expect(unknown.at(-1), 'without a reset time, the whole window').toBe('"p";r=0;t=60')
  })

  it('uses the default policy name', () => {
    const headers: string[] = []
    const limiter = createRateLimiter({
      quota: 5,
      windowSeconds: 10,
      store: new WindowCounter(),
      keyOf: () => 'k',
      publicBaseUrl: BASE,
      onStoreError: () => undefined,
    })
    const allowed = counting(limiter)(fakeRequest('GET', '/'), fakeResponse().response, headers)
    expect(allowed).toBe(true)
    expect(headers).toEqual(['RateLimit', '"default";r=4;t=10'])
    expect(limiter.policy.list).toEqual(['RateLimit-Policy', '"default";q=5;w=10'])
  })

  it('counts each client by its key', () => {
    const keys: string[] = []
    const store = {increment: (key: string) => (keys.push(key), {totalHits: 1, resetTime: undefined})}
    const allowed = counting(
      createRateLimiter({
        quota: 5,
        windowSeconds: 10,
        store,
        keyOf: (request) => String(request.url),
        publicBaseUrl: BASE,
        onStoreError: () => undefined,
      }),
    )(fakeRequest('GET', '/a'), fakeResponse().response, [])
    expect(allowed).toBe(true)
    expect(keys).toEqual(['/a'])
  })

  it('awaits a store that answers with a promise', async () => {
    const store = {increment: async () => ({totalHits: 3, resetTime: undefined})}
    const {response, written} = fakeResponse()
    const allowed = counting(limiter(store))(fakeRequest('GET', '/'), response, [])
    expect(allowed).toBeInstanceOf(Promise)
    expect(await allowed).toBe(false)
    expect(written.status).toBe(429)
    expect(
      await counting(limiter({increment: async () => ({totalHits: 1, resetTime: undefined})}))(
        fakeRequest('GET', '/'),
        fakeResponse().response,
        [],
      ),
    ).toBe(true)
  })

  it('lets a failed count through and reports it', async () => {
    const errors: unknown[] = []
    expect(
      counting(
        limiter(
          {
            increment: () => {
              throw new Error('down')
            },
          },
          (error) => errors.push(error),
        ),
      )(fakeRequest('GET', '/'), fakeResponse().response, []),
    ).toBe(true)
    expect(
      await counting(limiter({increment: () => Promise.reject(new Error('gone'))}, (error) => errors.push(error)))(
        fakeRequest('GET', '/'),
        fakeResponse().response,
        [],
      ),
    ).toBe(true)
    expect(errors).toEqual([new Error('down'), new Error('gone')])
  })
})
