// Integration: request logs and Prometheus metrics over real HTTP, as `npm start` wires them.
import {afterEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {sampleCounts} from '../helpers/sample.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
afterEach(() => server.close())

const EPISODE = '/api/v1/episodes/ep-1-why-we-started.json'
const logLineSchema = z.object({
  level: z.number(),
  time: z.string(),
  req: z.object({id: z.string(), method: z.string(), url: z.string()}),
  client: z.string(),
  res: z.object({statusCode: z.number()}),
  responseTime: z.number(),
  bytes: z.number(),
  msg: z.string(),
})

const requestLogs = () =>
  server.logLines
    .map((line) => JSON.parse(line))
    .filter((entry) => 'req' in entry)
    .map((entry) => logLineSchema.parse(entry))

/** A sample's value from Prometheus's text format, or undefined when the series is absent. */
function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('request logs', () => {
  it('log one JSON line per response with the request id, which the response echoes', async () => {
    server = await startTestServer({observed: true})
    const forwarded = await fetch(`${server.baseUrl}${EPISODE}`, {
      headers: {'X-Request-Id': 'cdn-4f2a91', 'Accept-Encoding': 'identity'},
    })
    expect(forwarded.headers.get('x-request-id')).toBe('cdn-4f2a91')
    const episodeBytes = (await forwarded.arrayBuffer()).byteLength
    // An id that is not one (spaces, too long) is replaced with a fresh one: this process's prefix and a sequence number.
    const replaced = await fetch(`${server.baseUrl}/api/v1/episodes/no-such-episode.json`, {
      headers: {'X-Request-Id': 'not an id'},
    })
    expect(replaced.status).toBe(404)
    const madeUp = replaced.headers.get('x-request-id') ?? ''
    expect(madeUp).toMatch(/^[\w-]{8}-[0-9a-z]+$/)
    const next = (await fetch(`${server.baseUrl}/api/v1/index.json`)).headers.get('x-request-id') ?? ''
    expect(next).not.toBe(madeUp)
    expect(next.slice(0, 9)).toBe(madeUp.slice(0, 9))

    await expect.poll(() => requestLogs().length).toBe(3)
    const [first, second] = requestLogs()
    // Answered by the fast path, written in full: completed, with the body's bytes.
    expect(first).toMatchObject({
      req: {id: 'cdn-4f2a91', method: 'GET', url: EPISODE},
      client: '127.0.0.1',
      res: {statusCode: 200},
      level: 30,
      bytes: episodeBytes,
      msg: 'request completed',
    })
    expect(second).toMatchObject({req: {id: madeUp}, res: {statusCode: 404}, level: 30})
  })

  it("log a client's first 429 in a minute and summarise the rest in one line after it", async () => {
    let now = new Date('2026-06-01T00:00:00Z')
    server = await startTestServer({observed: true, clock: () => now, environment: {RATE_LIMIT_QUOTA: '5'}})
    const statuses = []
    for (let index = 0; index < 50; index++) statuses.push((await fetch(`${server.baseUrl}/api/v1/index.json`)).status)
    expect(statuses.filter((status) => status === 429)).toHaveLength(45)
    await expect.poll(() => requestLogs().length).toBe(6)
    expect(requestLogs().filter((entry) => entry.res.statusCode === 429)).toHaveLength(1)

    now = new Date(now.getTime() + 61_000)
    await fetch(`${server.baseUrl}/metrics`)
    const summaries = () => server.logLines.map((line) => JSON.parse(line)).filter((entry) => 'rateLimited' in entry)
    await expect.poll(() => summaries().length).toBe(1)
    expect(summaries()[0]).toMatchObject({
      rateLimited: {refused: 45, clients: 1, top: [{client: '127.0.0.1', refused: 45}]},
    })
  })

  it('cut the fields a client chooses, so one request writes a bounded line', async () => {
    server = await startTestServer({observed: true})
    const longPath = `/api/v1/${'x'.repeat(2000)}`
    expect((await fetch(`${server.baseUrl}${longPath}`, {headers: {'User-Agent': 'y'.repeat(8000)}})).status).toBe(404)
    await expect.poll(() => server.logLines.length).toBeGreaterThan(0)
    const line = server.logLines.find((candidate) => candidate.includes('"req"')) ?? ''
    expect(line.length).toBeLessThan(1500)
    expect(line).toContain('(2008 characters)')
  })
})

describe('GET /metrics', () => {
  it('counts requests by route with slugs folded, revalidations, and reports the snapshot', async () => {
    server = await startTestServer({observed: true})
    const etag = (await fetch(`${server.baseUrl}${EPISODE}`)).headers.get('etag') ?? ''
    expect((await fetch(`${server.baseUrl}${EPISODE}`, {headers: {'If-None-Match': etag}})).status).toBe(304)
    expect(
      (await fetch(`${server.baseUrl}/api/v1/episodes/ep-2-whatever.json`, {headers: {'If-None-Match': '"stale"'}}))
        .status,
    ).toBe(404)
    expect(
      (await fetch(`${server.baseUrl}/api/v1/meetups/meetup-1.json?x`, {headers: {'If-None-Match': '"stale"'}})).status,
    ).toBeLessThan(500)
    expect((await fetch(`${server.baseUrl}/wp-admin/install.php`)).status).toBe(404)
    expect((await fetch(`${server.baseUrl}/llms.txt`)).status).toBe(200)

    const response = await fetch(`${server.baseUrl}/metrics`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const metrics = await response.text()
    expect(sample(metrics, 'catalog_http_requests_total{route="/api/v1/episodes/{slug}.json",status="200"}')).toBe(1)
    expect(sample(metrics, 'catalog_http_requests_total{route="/api/v1/episodes/{slug}.json",status="304"}')).toBe(1)
    expect(sample(metrics, 'catalog_http_requests_total{route="/api/v1/episodes/{slug}.json",status="404"}')).toBe(1)
    expect(sample(metrics, 'catalog_http_requests_total{route="{unknown}",status="404"}')).toBe(1)
    expect(sample(metrics, 'catalog_http_requests_total{route="/llms.txt",status="200"}')).toBe(1)
    expect(metrics).not.toContain('wp-admin')
    expect(metrics).not.toContain('ep-1-why-we-started')
    expect(sample(metrics, 'catalog_http_revalidations_total{outcome="not_modified"}')).toBe(1)
    expect(sample(metrics, 'catalog_documents{collection="episodes"}')).toBe(sampleCounts.episodes)
    expect(sample(metrics, 'catalog_snapshot_age_seconds')).toBeGreaterThanOrEqual(0)
    expect(sample(metrics, 'catalog_search_index_build_failures')).toBe(0)
    expect(sample(metrics, 'process_resident_memory_bytes')).toBeGreaterThan(0)
  })

  it('records rebuild durations and failures', async () => {
    let failing = false
    const file = createEmbeddedFileSource(SAMPLE_DATASET)
    const source = {
      ...file,
      fetch: (query: string, params?: Record<string, unknown>) =>
        failing ? Promise.reject(new Error('source down')) : file.fetch(query, params),
    }
    server = await startTestServer({observed: true, source, store: {retryDelayMs: 60_000}})
    await server.store.refresh()
    failing = true
    await expect(server.store.refresh()).rejects.toThrow('source down')

    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    expect(sample(metrics, 'catalog_rebuild_duration_seconds_count{kind="full",result="success"}')).toBe(1)
    expect(sample(metrics, 'catalog_rebuild_duration_seconds_count{kind="full",result="failure"}')).toBe(1)
    expect(sample(metrics, 'catalog_rebuild_failures_total{kind="full"}')).toBe(1)
  })

  it('shows the page cache staying under its bound while clients ask for distinct pages', async () => {
    server = await startTestServer({observed: true, environment: {PAGE_CACHE_MEGABYTES: '0.25'}})
    const bound = 0.25 * 1024 * 1024
    const nextCursor = z.object({pagination: z.object({next_cursor: z.string().nullable()})})
    const cursors: string[] = []
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = nextCursor.parse(
        await (await fetch(`${server.baseUrl}/api/v1/episodes.json?limit=1&cursor=${cursor}`)).json(),
      )
      cursor = page.pagination.next_cursor
      if (cursor) cursors.push(cursor)
    }
    // Every (limit, cursor) pair is a page of its own, in all three codings: several times the bound.
    for (const limit of [2, 3, 5, 8, 13, 21, 34]) {
      for (const cursor of cursors) {
        const response = await fetch(`${server.baseUrl}/api/v1/episodes.json?limit=${limit}&cursor=${cursor}`, {
          headers: {'Accept-Encoding': 'br, gzip'},
        })
        expect(response.status).toBe(200)
        await response.arrayBuffer()
      }
    }
    const cached =
      sample(await (await fetch(`${server.baseUrl}/metrics`)).text(), 'catalog_page_cache_bytes') ?? Number.NaN
    expect(cached).toBeGreaterThan(bound / 2)
    expect(cached).toBeLessThanOrEqual(bound)
  })

  it('is never rate limited, and refuses writes', async () => {
    server = await startTestServer({observed: true, environment: {RATE_LIMIT_QUOTA: '2'}})
    for (let index = 0; index < 5; index++) expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(200)
    expect((await fetch(`${server.baseUrl}/api/v1/index.json`)).status).toBe(200)
    expect((await fetch(`${server.baseUrl}/metrics`, {method: 'POST'})).status).toBe(405)
  })
})
