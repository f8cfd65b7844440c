// Integration: `server/main.ts` as its own process with a real Redis (Debian's redis-server) that
// hangs: SIGSTOP keeps its connections open and answers nothing, unlike a Redis that is down.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {eventually} from '../helpers/eventually.ts'
import type {MainProcess} from '../helpers/main-process.ts'
import {startMainWithRedis, type MainWithRedis} from '../helpers/main-with-redis.ts'
import type {RedisServer} from '../helpers/redis.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-for-a-hung-redis'
let running: MainWithRedis
let redis: RedisServer
let server: MainProcess

beforeAll(async () => {
  running = await startMainWithRedis({
    RATE_LIMIT_QUOTA: '1000',
    SANITY_WEBHOOK_SECRET: SECRET,
  })
  ;({redis, server} = running)
}, 30_000)
afterAll(() => running.stop())

async function timedGet(path: string): Promise<{status: number; rateLimited: boolean; ms: number}> {
  const started = performance.now()
  const response = await fetch(`${server.baseUrl}${path}`, {signal: AbortSignal.timeout(10_000)})
  await response.arrayBuffer()
  return {status: response.status, rateLimited: response.headers.has('ratelimit'), ms: performance.now() - started}
}

describe('a Redis that hangs', () => {
  it('degrades the shared rate limit and the fan-out, never a GET, and recovers when Redis answers again', async () => {
    expect(await timedGet('/api/v1/index.json')).toMatchObject({status: 200, rateLimited: true})
    await redis.whileHung(async () => {
      const answers = []
      for (let round = 0; round < 10; round++)
        answers.push(...(await Promise.all(Array.from({length: 10}, () => timedGet('/api/v1/episodes.json')))))
      expect(answers.every((answer) => answer.status === 200)).toBe(true)
      // At most the command timeout for the requests that found Redis hung; the rest are counted in
      // the process (times on a busy machine vary by round, so the server's own account is checked:
      // one switch to local counts; redis-paused-limiter.integration.test.ts compares latencies).
      expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(1500)
      expect(server.output().match(/counting in this process until it answers/g)).toHaveLength(1)

      // A webhook is answered and rebuilds this replica; only the announcement to others is lost.
      const started = performance.now()
      const delivery = await sendSignedWebhook(server.baseUrl, SECRET, {_id: 'x', _type: 'voice'})
      expect(delivery.status).toBe(202)
      expect(performance.now() - started).toBeLessThan(1500)
      await eventually(async () => expect(server.output()).toMatch(/rebuild of x done/), 5000)
    })
    await eventually(
      async () => expect(await timedGet('/api/v1/index.json')).toMatchObject({status: 200, rateLimited: true}),
      15_000,
    )
  }, 40_000)
})
