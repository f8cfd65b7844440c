import {startMainProcess, type MainProcess} from './main-process.ts'
import {startRedis, type RedisServer} from '../../support/redis.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

export interface MainWithRedis {
  redis: RedisServer
  server: MainProcess
  /** Wakes Redis (a test may have timed out while it was hung), then kills the server and stops Redis. */
  stop(): Promise<void>
}

/** `server/main.ts` as its own process over the sample dataset, with a real Redis (REDIS_URL) and `environment`. */
export async function startMainWithRedis(environment: Record<string, string>): Promise<MainWithRedis> {
  const redis = await startRedis()
  try {
    const server = await startMainProcess({
      PORT: '0',
      DATASET_FILE: SAMPLE_DATASET,
      REDIS_URL: redis.url,
      RECONCILE_INTERVAL_SECONDS: '0',
      ...environment,
    })
    return {
      redis,
      server,
      async stop() {
        redis.wake()
        await server.stop('SIGKILL')
        await redis.stop()
      },
    }
  } catch (error) {
    await redis.stop()
    throw error
  }
}
