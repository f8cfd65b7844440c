// Integration: a real Redis (Debian's redis-server) that hangs under SIGSTOP, asked by the purge
// queue whether every replica serves a version. node-redis stops timing a command once it is
// written, so without a deadline of its own the question is never answered and no purge goes out.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {PurgeQueue} from '../../server/edge/purge-queue.ts'
import {connectRedis, type RedisScaling} from '../../server/scaling/redis.ts'
import {eventually} from '../../support/eventually.ts'
import {recordingLogger} from '../helpers/log-lines.ts'
import {startRedis, type RedisServer} from '../../support/redis.ts'

const MAX_WAIT_MS = 3_000
const COMMAND_TIMEOUT_MS = 500
// A purge that waits on the hung Redis never goes out; one that gives up goes out within the
// deadlines above. Only the first runs this long, a busy machine does not.
const LIVENESS_MS = 20_000
let redis: RedisServer
let scaling: RedisScaling
const {logger, lines} = recordingLogger()
const errors = () => lines.filter((line) => line.level === 50).map((line) => `${line.msg}: ${line.err?.message}`)

beforeAll(async () => {
  redis = await startRedis()
  scaling = await connectRedis({
    url: redis.url,
    keyPrefix: 'purge-deadline:',
    replicaId: 'a',
    onRemoteChange: () => undefined,
    onResubscribed: () => undefined,
    logger,
    purgeWait: {maxWaitMs: MAX_WAIT_MS, commandTimeoutMs: COMMAND_TIMEOUT_MS},
  })
}, 30_000)
afterAll(async () => {
  redis?.wake()
  await scaling?.close()
  await redis?.stop()
})

describe('a purge gated on the replicas while Redis hangs', () => {
  it('goes out within the deadline and logs that the replicas could not be asked', async () => {
    const purged: {keys: readonly string[]}[] = []
    const adapter: PurgeAdapter = {
      provider: 'test',
      purge: async (keys) => void purged.push({keys}),
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
        scaling.servedVersions.serving('v2')
        queue.enqueue(['episodes/ep-2'], 'v2')
        // Sent while Redis still hangs (whileHung wakes it only after this), for the reason that the
        // command's own deadline ran out: not because Redis answered, nor at LIVENESS_MS.
        await eventually(async () => expect(purged).toHaveLength(2), LIVENESS_MS)
        expect(purged[1]?.keys).toEqual(['episodes/ep-2'])
        expect(errors()).toContainEqual(
          expect.stringMatching(
            `could not ask the replicas whether they serve version v2.*Redis did not answer within ${COMMAND_TIMEOUT_MS} ms`,
          ),
        )
      })
      .finally(() => queue.close())
  }, 60_000)
})
