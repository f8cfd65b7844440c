// Integration: /healthz and /readyz on the real app over a loopback port, with a rate limit of 3
// requests a minute and request logs on, as `npm start` has them; and /readyz of a restarted
// server whose first read the mass-deletion guard holds.
import {copyFile, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readProblem} from '../helpers/contract.ts'
import {eventually} from '../../support/eventually.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

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

  it('/readyz answers a 503 problem while the first read is held, and /healthz still 200', async () => {
    // A saved snapshot of the sample, then a restart over a dataset file cut to a tenth: the
    // mass-deletion guard holds the first read, and the saved catalog is served meanwhile.
    const folder = await mkdtemp(join(tmpdir(), 'catalog-readiness-'))
    const dataset = join(folder, 'catalog.ndjson')
    const environment = {DATASET_FILE: dataset, SNAPSHOT_DIR: join(folder, 'saved')}
    try {
      await copyFile(SAMPLE_DATASET, dataset)
      const first = await startTestServer({environment})
      await eventually(async () => expect(await readdir(join(folder, 'saved'))).toContain('snapshot.ndjson'))
      await first.close()
      const lines = (await readFile(SAMPLE_DATASET, 'utf8')).split('\n').filter((line) => line !== '')
      await writeFile(dataset, `${lines.slice(0, Math.ceil(lines.length / 10)).join('\n')}\n`)
      const restarted = await startTestServer({environment})
      try {
        await eventually(async () => expect((await fetch(`${restarted.baseUrl}/readyz`)).status).toBe(503))
        const response = await fetch(`${restarted.baseUrl}/readyz`)
        expect(response.headers.get('cache-control')).toBe('no-store')
        const problem = await readProblem(response, 503)
        expect(problem.detail).toMatch(/^The first read of the source is held by the mass-deletion guard/)
        expect((await fetch(`${restarted.baseUrl}/healthz`)).status).toBe(200)
      } finally {
        await restarted.close()
      }
    } finally {
      await rm(folder, {recursive: true, force: true})
    }
  })
})
