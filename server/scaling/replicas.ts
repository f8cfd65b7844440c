import {hostname} from 'node:os'
import type {ContentChange} from '../content/content-change.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {connectRedis, type RedisOptions, type RedisScaling} from './redis.ts'

export interface Replicas extends RedisScaling {
  /**
   * From now on the changes other replicas announce go to `heard` (those announced before, now),
   * and a subscription restored after an outage re-reads `store` in full.
   */
  serve(store: Pick<SnapshotStore, 'refresh'>, heard: (change: ContentChange) => void): void
}

/**
 * Redis for a replica that connects before it serves (the first snapshot's purge waits until every
 * replica serves it): the changes other replicas announce before its first snapshot wait for it.
 */
export async function connectReplicas(
  options: Omit<RedisOptions, 'replicaId' | 'onRemoteChange' | 'onResubscribed'> & {replicaId?: string | undefined},
): Promise<Replicas> {
  const {logger, replicaId = `${hostname()}:${process.pid}`} = options
  let waiting: ContentChange[] | undefined = []
  let served: {store: Pick<SnapshotStore, 'refresh'>; heard: (change: ContentChange) => void} | undefined
  const connected = await connectRedis({
    ...options,
    replicaId,
    onRemoteChange: (change) => (served ? served.heard(change) : waiting?.push(change)),
    onResubscribed: () => {
      logger.info('re-reading the catalog: Redis subscription restored (changes announced meanwhile were missed)')
      served?.store.refresh().catch(() => undefined) // recorded, logged and retried by the store
    },
  })
  return {
    ...connected,
    serve(store, heard) {
      served = {store, heard}
      for (const change of waiting ?? []) heard(change)
      waiting = undefined
    },
  }
}
