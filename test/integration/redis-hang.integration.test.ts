// Integration: `server/main.ts` as its own process with a real Redis (Debian's redis-server) that
// hangs: SIGSTOP keeps its connections open and answers nothing, unlike a Redis that is down.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {eventually} from '../../support/eventually.ts'
import type {MainProcess} from '../helpers/main-process.ts'
import {startMainWithRedis, type MainWithRedis} from '../helpers/main-with-redis.ts'
import type {RedisServer} from '../../support/redis.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-for-a-hung-redis'
// An answer that waits on the hung Redis never comes; one that does not comes in milliseconds. Only
// the first runs this long, a busy machine does not.
const LIVENESS_MS = 20_000
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

async function get(path: string): Promise<{status: number; rateLimited: boolean}> {
  const response = await fetch(`${server.baseUrl}${path}`, {signal: AbortSignal.timeout(LIVENESS_MS)})
  await response.arrayBuffer()
  return {status: response.status, rateLimited: response.headers.has('ratelimit')}
}

/** Rejects after `ms`, naming what did not come. */
const notWithin = (ms: number, what: string) =>
  new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref())

describe('a Redis that hangs', () => {
  it('degrades the shared rate limit and the fan-out, never a GET, and recovers when Redis answers again', async () => {
    expect(await get('/api/v1/index.json')).toMatchObject({status: 200, rateLimited: true})
    await redis.whileHung(async () => {
      const answers = []
      for (let round = 0; round < 10; round++)
        answers.push(...(await Promise.all(Array.from({length: 10}, () => get('/api/v1/episodes.json')))))
      expect(answers.every((answer) => answer.status === 200)).toBe(true)
      // Every GET answered (none aborted after LIVENESS_MS) and one switch to local counts, by the
      // server's own account: a GET never waits on the hung Redis past the counter's deadline (unit
      // tested on a fake clock in failover-counter.test.ts; redis-paused-limiter compares latencies).
      expect(server.output().match(/counting in this process until it answers/g)).toHaveLength(1)

      // A webhook is answered and rebuilds this replica; only the announcement to others is lost.
      // Answered here, before Redis is woken: the answer does not wait for the announcement.
      const delivery = await Promise.race([
        sendSignedWebhook(server.baseUrl, SECRET, {_id: 'x', _type: 'voice'}),
        notWithin(LIVENESS_MS, 'the webhook was not answered while Redis hung'),
      ])
      expect(delivery.status).toBe(202)
      await eventually(async () => expect(server.output()).toMatch(/rebuild of x done/), LIVENESS_MS)
    })
    await eventually(
      async () => expect(await get('/api/v1/index.json')).toMatchObject({status: 200, rateLimited: true}),
      LIVENESS_MS,
    )
  }, 90_000)
})
