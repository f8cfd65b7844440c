// Integration: the generated VCL takes its TTL and grace from the origin's CDN-Cache-Control. The
// origin sets a one-second edge TTL (CDN_EDGE_MAX_AGE_SECONDS=1), so expiry and grace are observable.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {originHealthyBehind, startVarnish, type RunningVarnish} from '../../support/varnish.ts'

const TOKEN = 'purge-token-for-the-tests'
let origin: TestServer
let varnish: RunningVarnish

beforeAll(async () => {
  const port = await freePort()
  origin = await startTestServer({
    observed: true,
    environment: {
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: `http://127.0.0.1:${port}/`,
      CDN_PURGE_TOKEN: TOKEN,
      CDN_EDGE_MAX_AGE_SECONDS: '1',
    },
    edge: {retry: {initialDelayMs: 50, maxDelayMs: 300}},
  })
  varnish = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN, port})
  await originHealthyBehind(varnish)
  await origin.edge?.drained()
}, 60_000)
afterAll(async () => {
  await varnish?.stop()
  await origin?.close().catch(() => undefined)
})

const originRequests = (path: string) =>
  origin.logLines.filter(
    (line) => z.object({req: z.object({url: z.string()})}).safeParse(JSON.parse(line)).data?.req.url === path,
  ).length
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('edge TTL and grace from CDN-Cache-Control', () => {
  it('refreshes an object once the edge TTL has passed (not after Cache-Control max-age=60)', async () => {
    const path = '/api/v1/voices.json'
    expect((await rawRequest(`${varnish.url}${path}`)).headers['x-cache']).toBe('MISS')
    expect((await rawRequest(`${varnish.url}${path}`)).headers['x-cache']).toBe('HIT')
    expect(originRequests(path)).toBe(1)
    await wait(1500)
    expect((await rawRequest(`${varnish.url}${path}`)).status).toBe(200) // served from grace, refreshed behind it
    await eventually(async () => expect(originRequests(path)).toBe(2))
  })

  it('keeps serving a stale copy while the origin is down: a failed refresh does not replace it', async () => {
    const path = '/api/v1/meetups.json'
    const fresh = await rawRequest(`${varnish.url}${path}`)
    expect(fresh.status).toBe(200)
    await origin.close()
    await wait(1500)
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const stale = await rawRequest(`${varnish.url}${path}`)
      expect(stale.status, `attempt ${attempt}`).toBe(200)
      expect(stale.body).toEqual(fresh.body)
      await wait(300) // the background refresh of the previous attempt has failed by now
    }
  }, 30_000)
})
