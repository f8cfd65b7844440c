import type {Logger} from 'pino'
import {RedisStore} from 'rate-limit-redis'
import {createClient} from 'redis'
import {backoffDelay} from '../backoff.ts'
import {withDeadline} from '../deadline.ts'
import type {CounterStore} from '../http/rate-limit.ts'
import type {ContentChange} from '../content/content-change.ts'
import {createChangeFanOut, type ChangeFanOut} from './change-fan-out.ts'
import {createHistoryFanOut, type HistoryFanOut} from './history-fan-out.ts'
import {SharedHistory} from '../snapshot/shared-history.ts'
import {createServedVersions, type ServedVersions, type ServedVersionsOptions} from './served-versions.ts'

/** Redis answers in well under a millisecond on a healthy network; a command this slow has failed. */
const REDIS_COMMAND_TIMEOUT_MS = 250

export interface RedisOptions {
  url: string
  /** Namespaces this deployment's keys and channel, so several APIs can share one Redis. */
  keyPrefix: string
  replicaId: string
  onRemoteChange: (change: ContentChange) => void
  /** The subscription came back after an outage: changes announced meanwhile were missed. */
  onResubscribed: () => void
  /** The connections lost and restored, the fan-outs' failures, the purges' waits for the replicas. */
  logger: Logger
  /** How long the first connection may take before the server refuses to start. */
  connectTimeoutMs?: number
  /** How long a purge waits for the replicas, and for each Redis command it makes (the defaults outside tests). */
  purgeWait?: Pick<ServedVersionsOptions, 'maxWaitMs' | 'commandTimeoutMs' | 'heartbeatMs' | 'pollMs'>
}

export interface RedisScaling {
  /** One rate-limit count per client across every replica. */
  counterStore: CounterStore
  fanOut: ChangeFanOut
  /** The version each replica serves, so a CDN purge waits for the slowest. */
  servedVersions: ServedVersions
  /** The versions the other replicas served, which this replica's change histories read. */
  sharedHistory: SharedHistory
  /** Tells the other replicas each version this one serves, so its change-feed tokens work there. */
  history: HistoryFanOut
  close(): Promise<void>
}

/**
 * Connects the two clients a replica needs (commands, and a subscriber, which Redis dedicates to
 * pub/sub). Commands fail at once while Redis is away instead of queueing, and after
 * `REDIS_COMMAND_TIMEOUT_MS` while it hangs: the rate limiter then lets requests through and
 * rebuilds stay local, so an outage degrades the quota and the fan-out, never the API. The clients
 * reconnect by themselves.
 */
export async function connectRedis(options: RedisOptions): Promise<RedisScaling> {
  const {url, keyPrefix, replicaId, onRemoteChange, onResubscribed, logger, connectTimeoutMs = 10_000} = options
  const commands = createClient({
    url,
    disableOfflineQueue: true,
    // A command not yet written fails after the timeout; one already written waits for its answer
    // (the rate limiter stops waiting at its own deadline), and this bounds how many can wait.
    commandOptions: {timeout: REDIS_COMMAND_TIMEOUT_MS},
    commandsQueueMaxLength: 1000,
    socket: {connectTimeout: 5_000, reconnectStrategy: (retries) => backoffDelay(retries + 1, 100, 5_000)},
  })
  const subscriber = commands.duplicate()
  for (const [name, client] of [
    ['commands', commands],
    ['subscriber', subscriber],
  ] as const) {
    let connected = false
    let readyBefore = false
    client.on('error', (error: unknown) => {
      if (!connected) return // reported once per outage, when it starts
      connected = false
      logger.error({err: error}, `Redis ${name} connection lost; reconnecting`)
    })
    client.on('ready', () => {
      connected = true
      if (readyBefore) logger.info(`Redis ${name} connection restored`)
      if (readyBefore && client === subscriber) onResubscribed()
      readyBefore = true
    })
  }

  try {
    await withDeadline(
      Promise.all([commands.connect(), subscriber.connect()]),
      connectTimeoutMs,
      `no answer from ${redactPassword(url)} within ${connectTimeoutMs} ms`,
    )
  } catch (error) {
    commands.destroy()
    subscriber.destroy()
    throw error
  }

  const fanOut = await createChangeFanOut({
    publisher: commands,
    subscriber,
    channel: `${keyPrefix}changes`,
    replicaId,
    onRemoteChange,
    onError: (error) => logger.error({err: error}, 'Redis change fan-out failed'),
  })
  const sharedHistory = new SharedHistory()
  const history = await createHistoryFanOut({
    commands,
    subscriber,
    key: `${keyPrefix}history`,
    replicaId,
    shared: sharedHistory,
    onError: (error) => logger.error({err: error}, 'Redis history fan-out failed'),
  })
  const counterStore = new RedisStore({
    prefix: `${keyPrefix}rate-limit:`,
    sendCommand: (...command: string[]) => commands.sendCommand(command),
  })
  const servedVersions = createServedVersions({
    hash: commands,
    key: `${keyPrefix}served-versions`,
    replicaId,
    ...options.purgeWait,
    logger,
  })
  logger.info(`Redis connected: one rate limit across replicas, webhooks fanned out to all`)
  return {
    counterStore,
    fanOut,
    servedVersions,
    sharedHistory,
    history,
    async close() {
      await servedVersions.close()
      await Promise.allSettled([commands.close(), subscriber.close()])
    },
  }
}

function redactPassword(url: string): string {
  const parsed = new URL(url)
  if (parsed.password) parsed.password = '***'
  return parsed.toString()
}
