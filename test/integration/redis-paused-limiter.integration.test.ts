// Integration: `server/main.ts` as its own process with a real Redis (Debian's redis-server) paused
// by SIGSTOP. The rate limiter waits for the hung Redis once, then counts in the process (quotas
// still hold, per replica) until Redis answers again; /status and /metrics say so.
import {Agent, request} from 'node:http'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {eventually} from '../../support/eventually.ts'
import type {MainProcess} from '../helpers/main-process.ts'
import {startMainWithRedis, type MainWithRedis} from '../helpers/main-with-redis.ts'
import type {RedisServer} from '../../support/redis.ts'

const QUOTA = 40
let running: MainWithRedis
let redis: RedisServer
let server: MainProcess

beforeAll(async () => {
  running = await startMainWithRedis({
    RATE_LIMIT_QUOTA: String(QUOTA),
    RATE_LIMIT_WINDOW_SECONDS: '600',
  })
  ;({redis, server} = running)
}, 30_000)
afterAll(() => running.stop())

interface Answer {
  status: number
  /** What the RateLimit header says is left of the client's quota. */
  remaining: number | undefined
  ms: number
}

// One kept-alive connection per client, so a request's time is the server's, not a connection's setup.
const agents = new Map<string, Agent>()
afterAll(() => agents.forEach((agent) => agent.destroy()))
const agentFor = (localAddress: string) => {
  let agent = agents.get(localAddress)
  if (!agent) agents.set(localAddress, (agent = new Agent({keepAlive: true, maxSockets: 1, localAddress})))
  return agent
}

/** One GET from `localAddress` (each loopback address is its own client to the limiter). */
function timedGet(path: string, localAddress: string): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const agent = agentFor(localAddress)
    const outgoing = request(`${server.baseUrl}${path}`, {agent, timeout: 10_000}, (response) => {
      response.resume()
      response.on('end', () => {
        const limit = /;r=(\d+);/.exec(String(response.headers.ratelimit))
        resolve({
          status: response.statusCode ?? 0,
          remaining: limit ? Number(limit[1]) : undefined,
          ms: performance.now() - started,
        })
      })
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer to ${path} within 10 s`)))
    outgoing.on('error', reject)
    outgoing.end()
  })
}

const statusSchema = z.object({
  rate_limit: z.object({counted: z.enum(['shared', 'local']), local_since: z.string().nullable()}),
})
const rateLimitStatus = async () =>
  statusSchema.parse(await (await fetch(`${server.baseUrl}/status`, {signal: AbortSignal.timeout(10_000)})).json())
    .rate_limit
const localGauge = async () =>
  /^catalog_rate_limit_local (\d+)$/m.exec(
    await (await fetch(`${server.baseUrl}/metrics`, {signal: AbortSignal.timeout(10_000)})).text(),
  )?.[1]

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}

describe('the rate limiter with a paused Redis', () => {
  it('waits for it once, then answers at once counting locally, and goes back to Redis after SIGCONT', async () => {
    // Baseline: the same server's GETs with Redis answering, each from a client of its own.
    // Each client's connection is opened first, so the baseline times requests, not connections.
    for (let index = 0; index < 20; index++) await timedGet('/api/v1/episodes.json', `127.0.2.${index + 1}`)
    const before: Answer[] = []
    for (let index = 0; index < 60; index++)
      before.push(await timedGet('/api/v1/episodes.json', `127.0.2.${(index % 20) + 1}`))
    expect(before.every((answer) => answer.status === 200)).toBe(true)
    // A client that has spent most of its quota in Redis.
    for (let index = 0; index < 30; index++) await timedGet('/api/v1/index.json', '127.0.3.1')
    expect(await rateLimitStatus()).toEqual({counted: 'shared', local_since: null})
    expect(await localGauge()).toBe('0')

    for (let index = 0; index < 20; index++) await timedGet('/api/v1/index.json', `127.0.5.${index + 1}`) // connections
    await redis.whileHung(async () => {
      const first = await timedGet('/api/v1/episodes.json', '127.0.4.1')
      expect(first.status).toBe(200)
      // For more than the old 5 s pause, twice: each of its ends cost a request the 250 ms deadline.
      const during: Answer[] = []
      const until = performance.now() + 11_000
      for (let index = 0; performance.now() < until && index < 400; index++) {
        during.push(await timedGet('/api/v1/episodes.json', `127.0.5.${(index % 20) + 1}`))
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(during.every((answer) => answer.status === 200)).toBe(true)
      // None waits for Redis (its deadline is 250 ms) and the p99 stays near the baseline's.
      const slow = during.filter((answer) => answer.ms >= 240)
      expect(slow.map((answer) => Math.round(answer.ms))).toEqual([])
      expect(
        percentile(
          during.map((answer) => answer.ms),
          0.99,
        ),
      ).toBeLessThan(
        Math.max(
          50,
          5 *
            percentile(
              before.map((answer) => answer.ms),
              0.99,
            ),
        ),
      )
      expect(await rateLimitStatus()).toMatchObject({counted: 'local', local_since: expect.any(String)})
      expect(await localGauge()).toBe('1')

      // The quota still holds, counted in this process: the 41st request of one client is refused.
      const spender: Answer[] = []
      for (let index = 0; index <= QUOTA; index++) spender.push(await timedGet('/api/v1/index.json', '127.0.6.1'))
      expect(spender.slice(0, QUOTA).every((answer) => answer.status === 200)).toBe(true)
      expect(spender.at(-1)).toMatchObject({status: 429, remaining: 0})
    })
    // Back to Redis: the client that spent 30 of its quota there sees that count again.
    await eventually(async () => {
      await timedGet('/api/v1/index.json', '127.0.7.1') // a request that may carry the probe
      expect(await rateLimitStatus()).toEqual({counted: 'shared', local_since: null})
    }, 15_000)
    expect(await localGauge()).toBe('0')
    const back = await timedGet('/api/v1/index.json', '127.0.3.1')
    expect(back.status).toBe(200)
    expect(back.remaining).toBeLessThanOrEqual(QUOTA - 31)
    expect(server.output()).toMatch(/counting in this process until it answers/)
    expect(server.output()).toMatch(/answers again; counting there/)
  }, 60_000)
})
