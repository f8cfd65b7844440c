// Integration: /healthz and /readyz on the real app over a loopback port, with a rate limit of 3
// requests a minute and request logs on, as `npm start` has them; and /readyz of a server whose
// readiness says no.
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createCatalogServer} from '../../server/catalog-server.ts'
import {readProblem} from '../helpers/contract.ts'
import {startTestServer, type TestServer} from '../helpers/server.ts'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    environment: {RATE_LIMIT_QUOTA: '3', RATE_LIMIT_WINDOW_SECONDS: '60'},
    observed: true,
  })
})
afterAll(() => server.close())

describe('/healthz and /readyz', () => {
  it('answer 200, uncached and unlogged, after the client has spent its quota', async () => {
    const statuses: number[] = []
    for (let request = 0; request < 4; request += 1) statuses.push((await fetch(`${server.baseUrl}/status`)).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const logged = server.logLines.length

    for (const path of ['/healthz', '/readyz', '/healthz', '/readyz', '/healthz', '/readyz']) {
      const response = await fetch(`${server.baseUrl}${path}`)
      expect({
        path,
        status: response.status,
        cacheControl: response.headers.get('cache-control'),
        rateLimit: response.headers.get('ratelimit'),
      }).toEqual({
        path,
        status: 200,
        cacheControl: 'no-store',
        rateLimit: null,
      })
      expect(await response.json()).toEqual({status: path === '/healthz' ? 'ok' : 'ready'})
    }
    expect((await fetch(`${server.baseUrl}/healthz`, {method: 'HEAD'})).status).toBe(200)
    expect((await fetch(`${server.baseUrl}/status`)).status).toBe(429)
    expect(server.logLines.slice(logged).map((line) => (JSON.parse(line) as {url?: string}).url)).not.toContain(
      '/healthz',
    )
    expect(server.logLines.slice(logged).join('\n')).not.toMatch(/healthz|readyz/)
  })

  it('/readyz answers a 503 problem while readiness says no, and /healthz still 200', async () => {
    const {server: notReady} = createCatalogServer({
      store: server.store,
      config: server.config,
      ready: () => ({ready: false, detail: 'The first read is held by the mass-deletion guard.'}),
    })
    notReady.listen(0, '127.0.0.1')
    await new Promise((resolve) => notReady.once('listening', resolve))
    const base = `http://127.0.0.1:${portOf(notReady.address())}`
    try {
      const response = await fetch(`${base}/readyz`)
      expect(response.headers.get('cache-control')).toBe('no-store')
      const problem = await readProblem(response, 503)
      expect(problem.detail).toBe('The first read is held by the mass-deletion guard.')
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
    } finally {
      notReady.closeAllConnections()
      await new Promise((resolve) => notReady.close(resolve))
    }
  })
})

function portOf(address: AddressInfo | string | null): number {
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return address.port
}
