// Integration: a real Redis (Debian's redis-server) that hangs under SIGSTOP, asked by the purge
// queue whether every replica serves a version. node-redis stops timing a command once it is
// written, so without a deadline of its own the question is never answered and no purge goes out.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {PurgeQueue} from '../../server/edge/purge-queue.ts'
import {connectRedis, type RedisScaling} from '../../server/scaling/redis.ts'
import {eventually} from '../helpers/eventually.ts'
import {startRedis, type RedisServer} from '../helpers/redis.ts'

const MAX_WAIT_MS = 3_000
let redis: RedisServer
let scaling: RedisScaling
const errors: string[] = []

beforeAll(async () => {
  redis = await startRedis()
  scaling = await connectRedis({
    url: redis.url,
    keyPrefix: 'purge-deadline:',
    replicaId: 'a',
    onRemoteChange: () => undefined,
    onResubscribed: () => undefined,
    log: {info: () => undefined, error: (_error, message) => void errors.push(message)},
    purgeWait: {maxWaitMs: MAX_WAIT_MS, commandTimeoutMs: 500},
  })
}, 30_000)
afterAll(async () => {
  redis?.wake()
  await scaling?.close()
  await redis?.stop()
})

describe('a purge gated on the replicas while Redis hangs', () => {
  it('goes out within the deadline and logs that the replicas could not be asked', async () => {
    const purged: {keys: readonly string[]; at: number}[] = []
    const adapter: PurgeAdapter = {
      provider: 'test',
      purge: async (keys) => void purged.push({keys, at: performance.now()}),
    }
    const queue = new PurgeQueue({
      adapter,
      maxKeys: 100,
      beforeSend: (version) => (version === null ? Promise.resolve() : scaling.servedVersions.allServe(version)),
    })
    scaling.servedVersions.serving('v1')
    queue.enqueue(['episodes/ep-1'], 'v1')
    await queue.drained()
    expect(purged).toHaveLength(1)

    await redis
      .whileHung(async () => {
        const started = performance.now()
        scaling.servedVersions.serving('v2')
        queue.enqueue(['episodes/ep-2'], 'v2')
        // A few seconds past the deadline at most, then whileHung wakes Redis whatever happened.
        await eventually(async () => expect(purged).toHaveLength(2), MAX_WAIT_MS + 3_000)
        expect(purged[1]?.keys).toEqual(['episodes/ep-2'])
        expect((purged[1]?.at ?? Infinity) - started).toBeLessThan(MAX_WAIT_MS + 1_000)
        expect(
          errors.some((message) => message.includes('could not ask the replicas whether they serve version v2')),
        ).toBe(true)
      })
      .finally(() => queue.close())
  }, 30_000)
})
