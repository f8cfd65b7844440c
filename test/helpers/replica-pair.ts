// Two npm-start processes sharing a real Redis (Debian's redis-server) on loopback and reading one
// stand-in for Sanity's query API, as replicas behind a load balancer would; reconcile is off, so
// only the webhook fan-out spreads a change.
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {startRedis, type RedisServer} from '../../support/redis.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {startMainProcess, type MainProcess} from './main-process.ts'

export interface ReplicaPair {
  first: MainProcess
  second: MainProcess
  /** The Redis both share, for a test that takes it away and brings it back. */
  redis: RedisServer
  stop(): Promise<void>
}

/** `documents` is read on every query, so a test edits the content by changing what it returns. */
export async function startReplicaPair(
  documents: () => SanityDocument[],
  environment: Record<string, string>,
): Promise<ReplicaPair> {
  const standIn = await startSanityStandIn(documents, {dataset: 'production'})
  const redis = await startRedis()
  const shared = {
    PORT: '0',
    PUBLIC_BASE_URL: 'https://api.example',
    SANITY_PROJECT_ID: 'embedded',
    SANITY_API_HOST: standIn.apiHost,
    REDIS_URL: redis.url,
    RECONCILE_INTERVAL_SECONDS: '0',
    ...environment,
  }
  const [first, second] = await Promise.all([startMainProcess(shared), startMainProcess(shared)])
  return {
    first,
    second,
    redis,
    async stop() {
      await Promise.all([first.stop(), second.stop()])
      await Promise.all([redis.stop(), standIn.close()])
    },
  }
}
