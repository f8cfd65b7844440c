// The operator's side over real HTTP: rate limits, CORS, version lifecycle, size and time limits.
import {connect} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {DEFAULT_LIMITS} from '../../server/http/server.ts'
import {readProblem} from '../helpers/contract.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer | undefined
afterEach(async () => {
  expect(server?.loggedErrors ?? []).toEqual([])
  await server?.close()
  server = undefined
})
const start = async (...options: Parameters<typeof startTestServer>) => (server = await startTestServer(...options))

describe('rate limiting', () => {
  it('advertises the policy on every response and answers 429 with Retry-After past the quota', async () => {
    const {baseUrl} = await start({environment: {RATE_LIMIT_QUOTA: '5', RATE_LIMIT_WINDOW_SECONDS: '30'}})
    const paths = ['/api/v1/index.json', '/api/v1/episodes.json', '/api/v1/nope.json', '/llms.txt', '/status']
    const windowOpened = performance.now()
    for (const [index, path] of paths.entries()) {
      const response = await fetch(`${baseUrl}${path}`)
      // Seconds left of the 30 s window opened by the first request: 30, or 29 for rounding, less
      // whatever these requests took on this machine, measured here.
      const took = Math.ceil((performance.now() - windowOpened) / 1000)
      expect(response.headers.get('ratelimit-policy'), path).toBe('"default";q=5;w=30')
      const rateLimit = /^"default";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '')
      expect(rateLimit?.[1], path).toBe(String(4 - index))
      expect(Number(rateLimit?.[2]), path).toBeLessThanOrEqual(30)
      expect(Number(rateLimit?.[2]), path).toBeGreaterThanOrEqual(29 - took)
      expect(response.headers.get('x-ratelimit-limit')).toBeNull()
    }
    const refused = await fetch(`${baseUrl}/api/v1/index.json`)
    const problem = await readProblem(refused, 429)
    expect(problem.detail).toContain('Retry after')
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(30)
    expect(refused.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/)
  })

  it('counts clients apart, and believes X-Forwarded-For only from a trusted proxy', async () => {
    const {baseUrl} = await start({environment: {RATE_LIMIT_QUOTA: '2', TRUST_PROXY: 'loopback'}})
    const from = (client: string) => fetch(`${baseUrl}/api/v1/index.json`, {headers: {'X-Forwarded-For': client}})
    expect((await from('203.0.113.1')).status).toBe(200)
    expect((await from('203.0.113.1')).status).toBe(200)
    expect((await from('203.0.113.1')).status).toBe(429)
    expect((await from('203.0.113.2')).status).toBe(200)
  })

  it('ignores X-Forwarded-For when no proxy is trusted: a client cannot pick its own key', async () => {
    const {baseUrl} = await start({environment: {RATE_LIMIT_QUOTA: '2'}})
    const statuses = []
    for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      statuses.push((await fetch(`${baseUrl}/api/v1/index.json`, {headers: {'X-Forwarded-For': client}})).status)
    }
    expect(statuses).toEqual([200, 200, 429])
  })

  it('is off with RATE_LIMIT_QUOTA=0', async () => {
    const {baseUrl} = await start({environment: {RATE_LIMIT_QUOTA: '0'}})
    const response = await fetch(`${baseUrl}/api/v1/index.json`)
    expect(response.headers.get('ratelimit-policy')).toBeNull()
  })
})

describe('CORS', () => {
  it('lets browsers on any origin read the API and its validators and rate-limit headers', async () => {
    const {baseUrl} = await start()
    const response = await fetch(`${baseUrl}/api/v1/episodes.json`, {headers: {Origin: 'https://app.example'}})
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(/,\s*/)
    expect(exposed).toEqual(expect.arrayContaining(['ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Link']))
  })

  it('answers a preflight, while other OPTIONS requests stay 405', async () => {
    const {baseUrl} = await start()
    const preflight = await fetch(`${baseUrl}/api/v1/episodes.json`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'if-none-match',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD')
    expect(preflight.headers.get('access-control-allow-headers')).toContain('If-None-Match')
    const plain = await fetch(`${baseUrl}/api/v1/episodes.json`, {method: 'OPTIONS'})
    await readProblem(plain, 405)
    expect(plain.headers.get('allow')).toBe('GET, HEAD')
  })

  it('is not offered on the MCP endpoint, which refuses foreign origins', async () => {
    const {baseUrl} = await start()
    const response = await fetch(`${baseUrl}/mcp`)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('version lifecycle', () => {
  const lifecycle = {
    DEPRECATION_DATE: '2027-01-01',
    SUNSET_DATE: '2027-07-01',
    SUCCESSOR_URL: 'https://api.example/api/v2/index.json',
  }

  it('sends no lifecycle headers while v1 is current', async () => {
    const {baseUrl} = await start()
    const response = await fetch(`${baseUrl}/api/v1/index.json`)
    for (const name of ['deprecation', 'sunset', 'link']) expect(response.headers.get(name), name).toBeNull()
  })

  it('marks every v1 response once deprecated, errors and the sandbox included', async () => {
    const {baseUrl} = await start({environment: lifecycle, clock: () => new Date('2027-02-01T00:00:00Z')})
    for (const path of [
      '/api/v1/index.json',
      '/api/v1/sandbox/episodes.json',
      '/api/v1/episodes/nope.json',
      '/api/v1/all.json',
    ]) {
      const response = await fetch(`${baseUrl}${path}`, {headers: {'Accept-Encoding': 'br'}})
      expect(response.headers.get('deprecation'), path).toBe(`@${Date.parse('2027-01-01T00:00:00Z') / 1000}`)
      expect(response.headers.get('sunset'), path).toBe('Thu, 01 Jul 2027 00:00:00 GMT')
      expect(response.headers.get('link'), path).toBe(
        '<https://api.example/api/v2/index.json>; rel="successor-version"',
      )
    }
    const portal = await fetch(`${baseUrl}/llms.txt`)
    expect(portal.headers.get('deprecation')).toBeNull()
  })

  it('answers 410 with the successor after the sunset', async () => {
    const {baseUrl} = await start({environment: lifecycle, clock: () => new Date('2027-07-01T00:00:01Z')})
    const response = await fetch(`${baseUrl}/api/v1/episodes.json`)
    const problem = await readProblem(response, 410)
    expect(problem.detail).toContain('https://api.example/api/v2/index.json')
    expect(response.headers.get('link')).toBe('<https://api.example/api/v2/index.json>; rel="successor-version"')
  })
})

describe('limits on what a client can send', () => {
  it('answers an overlong URL with 414 and oversized headers with 431, both problem+json', async () => {
    const {baseUrl} = await start()
    const long = await rawRequest(`${baseUrl}/api/v1/episodes/${'a'.repeat(3000)}.json`)
    expect(long.status).toBe(414)
    expect(long.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    const huge = await rawRequest(`${baseUrl}/api/v1/index.json`, {headers: {'X-Padding': 'x'.repeat(20_000)}})
    expect(huge.status).toBe(431)
    expect(huge.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(JSON.parse(huge.body.toString('utf8'))).toMatchObject({
      status: 431,
      title: 'Request Header Fields Too Large',
    })
  })

  it('disconnects a client that sends its headers too slowly, with a 408 problem', {timeout: 40_000}, async () => {
    const headersTimeoutMs = 300
    const {baseUrl} = await start({
      limits: {
        ...DEFAULT_LIMITS,
        headersTimeoutMs,
        requestTimeoutMs: 600,
        keepAliveTimeoutMs: 1000,
        timeoutCheckIntervalMs: 50,
      },
    })
    const {port} = new URL(baseUrl)
    const started = performance.now()
    // The client drips headers for up to 20 s: only a server without these timeouts (Node's own
    // are a minute, checked every 30 s) lets it go on that long, a busy machine does not.
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /api/v1/index.json HTTP/1.1\r\nHost: x\r\n'),
      )
      const drip = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100)
      const givingUp = setTimeout(() => socket.destroy(), 20_000)
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('utf8')))
      socket.on('close', () => {
        clearInterval(drip)
        clearTimeout(givingUp)
        resolve(text)
      })
      socket.on('error', reject)
    })
    // Headers that keep coming are not cut before their timeout.
    expect(performance.now() - started).toBeGreaterThanOrEqual(headersTimeoutMs)
    expect(received).toMatch(/^HTTP\/1\.1 408 /)
    expect(received).toContain('application/problem+json')
  })

  it('answers malformed HTTP with a 400 problem', async () => {
    const {baseUrl} = await start()
    const {port} = new URL(baseUrl)
    const received = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost x\r\n\r\n'))
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('utf8')))
      socket.on('close', () => resolve(text))
    })
    expect(received).toMatch(/^HTTP\/1\.1 400 /)
    expect(received).toContain('"status":400')
  })

  it('never says X-Powered-By, and always nosniff', async () => {
    const {baseUrl} = await start()
    for (const path of ['/api/v1/index.json', '/nope', '/status', '/docs']) {
      const response = await fetch(`${baseUrl}${path}`)
      expect(response.headers.get('x-powered-by'), path).toBeNull()
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff')
    }
  })
})
