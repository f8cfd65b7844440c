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
  clock?: () => number
  onGaveUp?: (version: string, lagging: readonly string[]) => void
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
  const {hash, key, replicaId, heartbeatMs = 2_000, pollMs = 50, maxWaitMs = 30_000, clock = Date.now} = options
  const goneAfterMs = 3 * heartbeatMs
  let current: string | undefined
  const say = () => {
    if (current !== undefined) hash.hSet(key, replicaId, `${current} ${clock()}`).catch(() => undefined) // the next heartbeat says it again
  }
  const heartbeat = setInterval(say, heartbeatMs)
  heartbeat.unref()

  /** The live replicas that serve anything but `version`, dropping the ones gone from the hash. */
  const lagging = async (version: string): Promise<string[]> => {
    const fields = await hash.hGetAll(key)
    const now = clock()
    const gone: string[] = []
    const behind: string[] = []
    for (const [replica, value] of Object.entries(fields)) {
      const separator = value.lastIndexOf(' ')
      const seenAt = Number(value.slice(separator + 1))
      if (separator === -1 || !(now - seenAt <= goneAfterMs)) gone.push(replica)
      else if (value.slice(0, separator) !== version) behind.push(replica)
    }
    if (gone.length > 0) await hash.hDel(key, gone)
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
          behind = await lagging(version)
        } catch {
          return false
        }
        if (behind.length === 0) return true
        if (clock() >= deadline) {
          options.onGaveUp?.(version, behind)
          return false
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs))
      }
    },
    async close() {
      clearInterval(heartbeat)
      await hash.hDel(key, [replicaId]).catch(() => undefined)
    },
  }
}
