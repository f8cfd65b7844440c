// Integration: a purge and a fetch still under way, on a real Varnish with the generated VCL. A
// stand-in origin holds its answer until the test has purged, as the origin does while it
// compresses a variant for the first time across a publish. Varnish's xkey skips the object being
// fetched, so the answer released after the purge is kept with the old bytes, unless it says
// `CDN-Cache-Control: no-store`, as the origin's then does (representation-response.ts).
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {PURGE_KEYS_HEADER, PURGE_TOKEN_HEADER} from '../../server/edge/varnish-adapter.ts'
import {eventually} from '../../support/eventually.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startVarnish, type RunningVarnish} from '../../support/varnish.ts'

const TOKEN = 'purge-token-for-the-tests'
const EDGE_TTL = 'max-age=86400, stale-if-error=86400'
let origin: Server
let varnish: RunningVarnish
/** What the stand-in serves now: a request takes the version current when it arrives. */
let version = 'old'
/** Requests held by the stand-in, by path: each waits for the edge directive to answer with. */
const held = new Map<string, (edgeDirective: string) => void>()
const originRequests: string[] = []

beforeAll(async () => {
  origin = createServer((request, response) => {
    const path = request.url ?? '/'
    originRequests.push(path)
    const answer = (edgeDirective: string, body: string) =>
      response
        .writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Cache-Control': 'public, max-age=60',
          'CDN-Cache-Control': edgeDirective,
          xkey: `key-of-${path}`,
        })
        .end(body)
    const body = JSON.stringify({version})
    // The first request for a held path waits; the health probe and every later request are answered at once.
    if (path.startsWith('/held/') && !held.has(path)) held.set(path, (edgeDirective) => answer(edgeDirective, body))
    else answer(EDGE_TTL, body)
  })
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
  varnish = await startVarnish({backends: [`127.0.0.1:${(origin.address() as AddressInfo).port}`], token: TOKEN})
}, 60_000)
afterAll(async () => {
  await varnish?.stop()
  await new Promise<void>((resolve) => origin?.close(() => resolve()))
})

/** A GET through Varnish whose fetch the stand-in holds, once the stand-in has it. */
async function heldRead(path: string) {
  version = 'old'
  const read = rawRequest(`${varnish.url}${path}`)
  await eventually(async () => expect(held.has(path)).toBe(true))
  return {read}
}

async function purge(path: string): Promise<number> {
  const response = await rawRequest(varnish.url, {
    method: 'PURGE',
    headers: {[PURGE_KEYS_HEADER]: `key-of-${path}`, [PURGE_TOKEN_HEADER]: TOKEN},
  })
  expect(response.status).toBe(200)
  return Number(JSON.parse(String(response.body)).purged)
}

const versionOf = (body: Buffer) => String(JSON.parse(String(body)).version)

describe('a fetch under way when its key is purged', () => {
  it('is kept with the old bytes when its answer carries the edge TTL: the purge passed it by', async () => {
    const path = '/held/ttl.json'
    const {read} = await heldRead(path)
    version = 'new'
    expect(await purge(path)).toBe(0)
    held.get(path)?.(EDGE_TTL)
    expect(versionOf((await read).body)).toBe('old')
    const next = await rawRequest(`${varnish.url}${path}`)
    expect(next.headers['x-cache']).toBe('HIT')
    expect(versionOf(next.body)).toBe('old')
  })

  it('is not kept when its answer says CDN-Cache-Control: no-store, so the next read fetches the new bytes and caches them', async () => {
    const path = '/held/no-store.json'
    const {read} = await heldRead(path)
    version = 'new'
    expect(await purge(path)).toBe(0)
    held.get(path)?.('no-store')
    const first = await read
    expect(versionOf(first.body)).toBe('old')
    expect(first.headers['cdn-cache-control']).toBeUndefined()
    const fetchesBefore = originRequests.filter((request) => request === path).length
    const next = await rawRequest(`${varnish.url}${path}`)
    expect(next.headers['x-cache']).toBe('MISS')
    expect(versionOf(next.body)).toBe('new')
    expect(originRequests.filter((request) => request === path).length).toBe(fetchesBefore + 1)
    const cached = await rawRequest(`${varnish.url}${path}`)
    expect(cached.headers['x-cache']).toBe('HIT')
    expect(versionOf(cached.body)).toBe('new')
  })
})
