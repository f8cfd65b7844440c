// Integration: a rolling restart under load. A second process takes the port (REUSE_PORT), the
// first gets SIGTERM, and clients hammering the port over keep-alive connections see no failure.
import {describe, expect, it} from 'vitest'
import {freePort} from '../../support/free-port.ts'
import {eventually} from '../../support/eventually.ts'
import {startMainProcess} from '../helpers/main-process.ts'

const CLIENTS = 8

describe('a restart under load', () => {
  it('fails no request while the old process drains and the new one serves', async () => {
    const port = await freePort()
    const environment = {PORT: String(port), REUSE_PORT: 'true', RATE_LIMIT_QUOTA: '0', RECONCILE_INTERVAL_SECONDS: '0'}
    const old = await startMainProcess(environment)

    let running = true
    const outcomes = {ok: 0, failed: [] as string[]}
    const paths = [
      '/api/v1/index.json',
      '/api/v1/episodes/ep-1-why-we-started.json',
      '/api/v1/all.json',
      '/api/v1/episodes.json?limit=5',
    ]
    const client = async (offset: number) => {
      for (let index = offset; running; index++) {
        const path = paths[index % paths.length] ?? '/'
        try {
          const response = await fetch(`http://127.0.0.1:${port}${path}`)
          await response.arrayBuffer()
          if (response.status === 200) outcomes.ok += 1
          else outcomes.failed.push(`${path}: ${response.status}`)
        } catch (error) {
          outcomes.failed.push(
            `${path}: ${error instanceof Error ? `${error.message} (${String(error.cause)})` : String(error)}`,
          )
        }
      }
    }
    const load = Promise.all(Array.from({length: CLIENTS}, (_, index) => client(index)))
    // Under load before the restart, however busy the machine is.
    await eventually(async () => expect(outcomes.ok).toBeGreaterThan(100), 10_000)

    const successor = await startMainProcess(environment)
    const exitCode = await old.stop('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 500))
    running = false
    await load

    expect(outcomes.failed).toEqual([])
    expect(exitCode).toBe(0)
    expect(old.output()).toMatch(/stopped after SIGTERM: in-flight requests finished in \d+ ms/)
    // The successor took over: its own metrics count what it served.
    const metrics = await (await fetch(`${successor.baseUrl}/metrics`)).text()
    const served = Number(
      /catalog_http_requests_total\{route="\/api\/v1\/index.json",status="200"\} (\d+)/.exec(metrics)?.[1],
    )
    expect(served).toBeGreaterThan(10)
    expect(await successor.stop()).toBe(0)
  }, 30_000)
})
