import type {Logger} from 'pino'
import {withDeadline} from '../deadline.ts'

/** The hash commands the registry makes; a Redis client fits. */
export interface VersionHash {
  hSet(key: string, field: string, value: string): Promise<unknown>
  hGetAll(key: string): Promise<Record<string, string>>
  hDel(key: string, fields: string[]): Promise<unknown>
}

export interface ServedVersionsOptions {
  hash: VersionHash
  /** One Redis hash for the deployment: a field per live replica, `version seenAt`. */
  key: string
  replicaId: string
  /** How often a replica says again what it serves; one silent for three of these is taken for gone. */
  heartbeatMs?: number
  /** How often `allServe` looks. */
  pollMs?: number
  /** The longest `allServe` waits for a lagging replica before giving up. */
  maxWaitMs?: number
  /** The longest one Redis command may take (within `maxWaitMs`): a hung Redis answers nothing, ever. */
  commandTimeoutMs?: number
  /** How far ahead of this replica's clock a heartbeat may be before it is taken for a wrong clock, not a live replica. */
  maxClockSkewMs?: number
  clock?: () => number
  /** Where a wait given up on is told, and a Redis that failed or did not answer in time (the purge then goes out as a lone replica's would). */
  logger?: Logger
}

export interface ServedVersions {
  /** This replica now serves `version`. */
  serving(version: string): void
  /**
   * Resolves true once every live replica serves `version`; false when one still lags after
   * `maxWaitMs`, or when Redis cannot tell (the caller then goes on as a lone replica would).
   */
  allServe(version: string): Promise<boolean>
  close(): Promise<void>
}

/**
 * What each replica sharing Redis serves, so a CDN purge waits until none of them serves the old
 * bytes: a purge sent while one replica lags lets the edge fetch those bytes again from it and
 * keep them for a day. A replica that stops saying what it serves (it crashed, or lost Redis) is
 * dropped from the hash after three heartbeats, so the hash holds the live replicas and no more.
 */
export function createServedVersions(options: ServedVersionsOptions): ServedVersions {
  const {
    hash,
    key,
    replicaId,
    heartbeatMs = 2_000,
    pollMs = 50,
    maxWaitMs = 30_000,
    commandTimeoutMs = 1_000,
    clock = Date.now,
    logger,
  } = options
  const goneAfterMs = 3 * heartbeatMs
  const maxClockSkewMs = options.maxClockSkewMs ?? goneAfterMs
  let current: string | undefined
  const say = () => {
    if (current !== undefined) hash.hSet(key, replicaId, `${current} ${clock()}`).catch(() => undefined) // the next heartbeat says it again
  }
  const heartbeat = setInterval(say, heartbeatMs)
  heartbeat.unref()

  /** The live replicas that serve anything but `version`, dropping the ones gone from the hash. */
  const lagging = async (version: string, deadline: number): Promise<string[]> => {
    const within = () => Math.max(1, Math.min(commandTimeoutMs, deadline - clock()))
    const fields = await answered(hash.hGetAll(key), within())
    const now = clock()
    const gone: string[] = []
    const behind: string[] = []
    for (const [replica, value] of Object.entries(fields)) {
      const separator = value.lastIndexOf(' ')
      const seenAt = Number(value.slice(separator + 1))
      if (separator === -1 || !(now - seenAt <= goneAfterMs && seenAt - now <= maxClockSkewMs)) gone.push(replica)
      else if (value.slice(0, separator) !== version) behind.push(replica)
    }
    if (gone.length > 0) await answered(hash.hDel(key, gone), within())
    return behind
  }

  return {
    serving(version) {
      current = version
      say()
    },
    async allServe(version) {
      const deadline = clock() + maxWaitMs
      for (;;) {
        let behind: string[]
        try {
          behind = await lagging(version, deadline)
        } catch (error) {
          logger?.error(
            {err: error},
            `could not ask the replicas whether they serve version ${version}; purging as a lone replica would`,
          )
          return false
        }
        if (behind.length === 0) return true
        if (clock() >= deadline) {
          logger?.warn(
            `CDN purge for version ${version} sent after waiting ${maxWaitMs / 1000} s for ${behind.join(', ')} to serve it`,
          )
          return false
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs))
      }
    },
    async close() {
      clearInterval(heartbeat)
      await answered(hash.hDel(key, [replicaId]), commandTimeoutMs).catch(() => undefined)
    },
  }
}

/**
 * `command`, or a rejection once `ms` have passed: node-redis stops timing a command once it is
 * written, so a Redis that hangs (SIGSTOP, a dead peer behind a live socket) would hold it forever.
 */
function answered<T>(command: Promise<T>, ms: number): Promise<T> {
  return withDeadline(command, ms, `Redis did not answer within ${ms} ms`)
}
