import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {z} from 'zod'
import {PurgeFailure, type PurgeAdapter} from './purge-adapter.ts'
import {GLOBAL_KEY} from '../snapshot/surrogate-keys.ts'

const MAX_DEAD_LETTERS = 20
const MAX_KEYS_KEPT_PER_DEAD_LETTER = 50

const deadLetterSchema = z.object({at: z.number(), error: z.string(), keys: z.array(z.string()), keyCount: z.number()})
type DeadLetter = z.infer<typeof deadLetterSchema>

const queueFileSchema = z.object({
  keys: z.array(z.string()),
  /** When the oldest key still waiting was enqueued, or a change was received whose keys are not known yet. */
  oldestAt: z.number().nullable(),
  /** A webhook was acknowledged and its snapshot not yet planned: after a crash, what changed is unknown. */
  unplannedSince: z.number().nullable(),
  /** The snapshot version the edge holds nothing older than, once every purge up to it was confirmed. */
  lastPurgedVersion: z.string().nullable(),
  pendingVersion: z.string().nullable(),
  deadLetters: z.array(deadLetterSchema),
})
type QueueState = z.infer<typeof queueFileSchema>

export interface PurgeQueueOptions {
  adapter: PurgeAdapter
  /** Where the queue survives a restart (under SNAPSHOT_DIR); in memory only when absent. */
  directory?: string
  /** More waiting keys than this collapse into the global key: one purge of everything. */
  maxKeys: number
  clock?: () => number
  retry?: {initialDelayMs: number; maxDelayMs: number}
  /** A purge unconfirmed for this long is dead-lettered: by then the edge has let the objects expire. */
  giveUpAfterMs?: number
  random?: () => number
  onPurged?: (outcome: {keys: number; version: string | null; durationMs: number}) => void
  onFailure?: (error: PurgeFailure, willRetryInMs: number | undefined) => void
  /**
   * Waited for before each purge, with the version it purges up to: replicas sharing Redis hold a
   * purge until every one of them serves that version (see scaling/served-versions.ts).
   */
  beforeSend?: (version: string | null) => Promise<unknown>
}

export interface PurgeQueueStatus {
  depth: number
  oldestUnpurgedAgeSeconds: number | null
  lastPurgedVersion: string | null
  purgesSent: number
  purgesFailed: number
  keysPurged: number
  deadLetters: readonly DeadLetter[]
}

/**
 * Keys waiting to be purged, merged (a purge is idempotent, so a key queued twice is sent once),
 * written to disk before a webhook is acknowledged, and sent by one worker that retries with
 * exponential backoff and full jitter, waiting at least what a 429's Retry-After asks.
 */
export class PurgeQueue {
  readonly #options: PurgeQueueOptions
  readonly #file: string | undefined
  readonly #clock: () => number
  #state: QueueState
  #timer: NodeJS.Timeout | undefined
  #running = false
  #attempt = 0
  #closed = false
  #sent = 0
  #failed = 0
  #keysPurged = 0
  #idle: (() => void)[] = []
  #restored = false

  constructor(options: PurgeQueueOptions) {
    this.#options = options
    this.#clock = options.clock ?? Date.now
    this.#file = options.directory ? join(options.directory, 'purge-queue.json') : undefined
    this.#state = this.#load()
  }

  #load(): QueueState {
    const empty: QueueState = {keys: [], oldestAt: null, unplannedSince: null, lastPurgedVersion: null, pendingVersion: null, deadLetters: []}
    if (!this.#file) return empty
    try {
      const state = queueFileSchema.parse(JSON.parse(readFileSync(this.#file, 'utf8')))
      this.#restored = true
      return state
    } catch {
      return empty // missing or damaged: the caller purges everything
    }
  }

  #save(): void {
    if (!this.#file) return
    mkdirSync(join(this.#file, '..'), {recursive: true})
    const temporary = `${this.#file}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(this.#state))
    renameSync(temporary, this.#file)
  }

  /**
   * What the edge may hold, as far as the file knows: the version it was last purged up to, or null
   * when unknown (no file, a damaged one, or a change accepted and never planned before a crash).
   */
  knownPurgedVersion(): string | null {
    return this.#restored && this.#state.unplannedSince === null ? this.#state.lastPurgedVersion : null
  }

  /** Records, durably, that a change was accepted whose keys are not known until its snapshot is built. */
  changeAccepted(): void {
    if (this.#state.unplannedSince !== null) return
    this.#state.unplannedSince = this.#clock()
    this.#state.oldestAt ??= this.#state.unplannedSince
    this.#save()
  }

  /**
   * Keys that changed up to `version` (the snapshot now served), whose build covered the changes
   * accepted before `buildStartedAt`; the worker sends them.
   */
  enqueue(keys: readonly string[], version: string, buildStartedAt: number = this.#clock()): void {
    const merged = new Set([...this.#state.keys, ...keys])
    const collapsed = merged.size > this.#options.maxKeys ? [GLOBAL_KEY] : [...merged]
    const acceptedAt = this.#state.unplannedSince
    // A change accepted while this build ran is not in it: it stays unplanned until its own build.
    const unplannedSince = acceptedAt !== null && acceptedAt >= buildStartedAt ? acceptedAt : null
    this.#state = {...this.#state, keys: collapsed, unplannedSince, pendingVersion: version}
    if (collapsed.length === 0) {
      this.#state.lastPurgedVersion = version
      this.#state.oldestAt = null
    } else this.#state.oldestAt ??= acceptedAt ?? this.#clock()
    this.#save()
    this.#kick(0)
  }

  status(): PurgeQueueStatus {
    const oldest = this.#state.oldestAt
    return {
      depth: this.#state.keys.length,
      oldestUnpurgedAgeSeconds: oldest === null ? null : Math.max(0, Math.round((this.#clock() - oldest) / 1000)),
      lastPurgedVersion: this.#state.lastPurgedVersion,
      purgesSent: this.#sent,
      purgesFailed: this.#failed,
      keysPurged: this.#keysPurged,
      deadLetters: this.#state.deadLetters,
    }
  }

  /** Resolves once nothing is waiting (for tests and shutdown). */
  drained(): Promise<void> {
    if (this.#state.keys.length === 0 && !this.#running) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
  }

  #kick(delayMs: number): void {
    if (this.#closed || this.#running || this.#state.keys.length === 0) return
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => void this.#work(), delayMs)
    this.#timer.unref()
  }

  async #work(): Promise<void> {
    this.#running = true
    // Until the version waited for is still the newest queued: keys queued meanwhile go with it.
    for (let awaited: string | null | undefined; awaited !== this.#state.pendingVersion;) {
      awaited = this.#state.pendingVersion
      await this.#options.beforeSend?.(awaited)
    }
    if (this.#closed) return
    const keys = this.#state.keys
    const version = this.#state.pendingVersion
    try {
      await this.#options.adapter.purge(keys)
      this.#sent += 1
      this.#keysPurged += keys.length
      this.#attempt = 0
      const sent = new Set(keys)
      const remaining = this.#state.keys.filter((key) => !sent.has(key))
      const oldestAt = this.#state.oldestAt
      this.#state = {...this.#state, keys: remaining, oldestAt: remaining.length === 0 && this.#state.unplannedSince === null ? null : this.#state.oldestAt}
      if (remaining.length === 0) this.#state.lastPurgedVersion = version
      this.#save()
      this.#options.onPurged?.({keys: keys.length, version, durationMs: oldestAt === null ? 0 : this.#clock() - oldestAt})
    } catch (error) {
      this.#failed += 1
      const failure = error instanceof PurgeFailure ? error : new PurgeFailure(error instanceof Error ? error.message : String(error), {cause: error})
      const tooOld = this.#state.oldestAt !== null && this.#clock() - this.#state.oldestAt > (this.#options.giveUpAfterMs ?? 86_400_000)
      if (failure.permanent || tooOld) {
        this.#deadLetter(keys, failure)
        this.#options.onFailure?.(failure, undefined)
      } else {
        const delay = this.#nextDelay(failure.retryAfterMs)
        this.#options.onFailure?.(failure, delay)
        this.#running = false
        this.#kick(delay)
        return
      }
    }
    this.#running = false
    if (this.#state.keys.length > 0) this.#kick(0)
    else for (const resolve of this.#idle.splice(0)) resolve()
  }

  #nextDelay(retryAfter: number | undefined): number {
    const {initialDelayMs, maxDelayMs} = this.#options.retry ?? {initialDelayMs: 1000, maxDelayMs: 60_000}
    this.#attempt += 1
    const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** (this.#attempt - 1))
    const jittered = Math.round((this.#options.random ?? Math.random)() * ceiling) // full jitter: replicas do not retry in step
    return Math.max(jittered, retryAfter ?? 0)
  }

  #deadLetter(keys: readonly string[], failure: PurgeFailure): void {
    const dropped = new Set(keys)
    const letter = {at: this.#clock(), error: failure.message.slice(0, 300), keys: keys.slice(0, MAX_KEYS_KEPT_PER_DEAD_LETTER), keyCount: keys.length}
    const remaining = this.#state.keys.filter((key) => !dropped.has(key))
    this.#state = {...this.#state, keys: remaining, oldestAt: remaining.length === 0 ? null : this.#state.oldestAt, deadLetters: [...this.#state.deadLetters, letter].slice(-MAX_DEAD_LETTERS)}
    this.#attempt = 0
    this.#save()
  }
}
