import {backoffDelay} from '../backoff.ts'
import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Logger} from 'pino'
import {z} from 'zod'
import {type PurgeAdapter} from './purge-adapter.ts'
import {GLOBAL_KEY} from '../snapshot/surrogate-keys.ts'
import {PurgeFailure, errorMessage} from '../errors.ts'

const QUEUE_FILE = 'purge-queue.json'
const MAX_DEAD_LETTERS = 20
const MAX_KEYS_KEPT_PER_DEAD_LETTER = 50
const WRITE_RETRY_MS = 5_000

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
type QueueFile = z.infer<typeof queueFileSchema>

/** A key waiting: the enqueue that last asked for it, and when the change behind its oldest ask was received. */
interface Waiting {
  generation: number
  since: number
}

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
  /**
   * Waited for before each purge, with the version it purges up to: replicas sharing Redis hold a
   * purge until every one of them serves that version (see scaling/served-versions.ts).
   */
  beforeSend?: (version: string | null) => Promise<unknown>
  /** Where failed purges are told, and a file that cannot be written (once per run of failures) or is written again. */
  logger?: Logger | undefined
  /** How soon a failed write is tried again when no change comes to try it. */
  writeRetryMs?: number
  /** Why the directory could not be written at start (already reported): the first failed write says nothing more. */
  refusedAtStart?: string | undefined
}

export interface PurgeQueueStatus {
  depth: number
  oldestUnpurgedAgeSeconds: number | null
  lastPurgedVersion: string | null
  purgesSent: number
  purgesFailed: number
  keysPurged: number
  deadLetters: readonly DeadLetter[]
  /** False while the file cannot be written: the queue then lives in memory only, and a crash loses it. */
  writable: boolean
  writeError: string | null
}

/**
 * Keys waiting to be purged, merged (a purge is idempotent, so a key queued twice is sent once),
 * written to disk before a webhook is acknowledged, and sent by one worker that retries with
 * exponential backoff and full jitter, waiting at least what a 429's Retry-After asks. A key
 * queued again while a purge of it is out stays queued: the purge may have reached the edge
 * before the newer bytes were served. A disk that cannot be written never stops the purges: the
 * queue keeps its state in memory, says so in `status()`, and writes again later.
 */
export class PurgeQueue {
  readonly #options: PurgeQueueOptions
  readonly #file: string | undefined
  readonly #clock: () => number
  readonly #keys = new Map<string, Waiting>()
  #generation = 0
  /** Changes accepted so far: a count, so "accepted before this build started" never hangs on a clock's resolution. */
  #accepted = 0
  #unplannedSince: number | null = null
  #lastPurgedVersion: string | null = null
  #pendingVersion: string | null = null
  #deadLetters: DeadLetter[] = []
  #writeError: unknown = undefined
  #writeTimer: NodeJS.Timeout | undefined
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
    this.#file = options.directory ? join(options.directory, QUEUE_FILE) : undefined
    this.#writeError = options.refusedAtStart
    if (options.directory) removeLeftovers(options.directory)
    this.#load()
    // Tried again until the directory takes it, even with no change to write.
    if (this.#writeError !== undefined)
      this.#writeTimer = setTimeout(() => this.#save(), options.writeRetryMs ?? WRITE_RETRY_MS).unref()
  }

  #load(): void {
    if (!this.#file) return
    let file: QueueFile
    try {
      file = queueFileSchema.parse(JSON.parse(readFileSync(this.#file, 'utf8')))
    } catch {
      return // missing or damaged: the caller purges everything
    }
    this.#restored = true
    for (const key of file.keys) this.#keys.set(key, {generation: 0, since: file.oldestAt ?? this.#clock()})
    this.#unplannedSince = file.unplannedSince
    this.#lastPurgedVersion = file.lastPurgedVersion
    this.#pendingVersion = file.pendingVersion
    this.#deadLetters = file.deadLetters
  }

  /** Writes the state; false (reported, and retried later) when the disk refuses. */
  #save(): boolean {
    if (!this.#file) return true
    clearTimeout(this.#writeTimer)
    const temporary = `${this.#file}.${process.pid}.tmp`
    const state: QueueFile = {
      keys: [...this.#keys.keys()],
      oldestAt: this.#oldestAt(),
      unplannedSince: this.#unplannedSince,
      lastPurgedVersion: this.#lastPurgedVersion,
      pendingVersion: this.#pendingVersion,
      deadLetters: this.#deadLetters,
    }
    try {
      mkdirSync(this.#options.directory ?? '.', {recursive: true})
      writeFileSync(temporary, JSON.stringify(state))
      renameSync(temporary, this.#file)
    } catch (error) {
      removeQuietly(temporary) // a full disk can leave part of it
      if (this.#writeError === undefined)
        this.#options.logger?.warn(
          {err: error},
          `cannot write the purge queue in ${this.#options.directory}; keeping it in memory, purging from there, retrying the write`,
        )
      this.#writeError = error
      if (!this.#closed)
        this.#writeTimer = setTimeout(() => this.#save(), this.#options.writeRetryMs ?? WRITE_RETRY_MS).unref()
      return false
    }
    if (this.#writeError !== undefined) {
      this.#writeError = undefined
      this.#options.logger?.info(`the purge queue in ${this.#options.directory} is written again`)
    }
    return true
  }

  #oldestAt(): number | null {
    let oldest = this.#unplannedSince
    for (const {since} of this.#keys.values()) if (oldest === null || since < oldest) oldest = since
    return oldest
  }

  /**
   * What the edge may hold, as far as the file knows: the version it was last purged up to, or null
   * when unknown (no file, a damaged one, or a change accepted and never planned before a crash).
   */
  knownPurgedVersion(): string | null {
    return this.#restored && this.#unplannedSince === null ? this.#lastPurgedVersion : null
  }

  /**
   * The version the edge holds nothing older than once the keys restored from the file are purged:
   * the newest one queued (null without a readable file). A change accepted and never built does not
   * move it: what the edge holds of that change's documents is still this version's.
   */
  knownEdgeVersion(): string | null {
    return this.#restored ? (this.#pendingVersion ?? this.#lastPurgedVersion) : null
  }

  /** How many changes were accepted so far: taken when a build starts, it says which changes the build covers. */
  acceptedCount(): number {
    return this.#accepted
  }

  /**
   * Records that a change was accepted whose keys are not known until its snapshot is built.
   * True once that is on disk (or the queue has no file); false when the disk refused it, so the
   * change may be lost with a crash and the sender should be asked to send it again.
   */
  changeAccepted(): boolean {
    this.#accepted += 1
    if (this.#unplannedSince !== null && this.#writeError === undefined) return true
    this.#unplannedSince ??= this.#clock()
    return this.#save()
  }

  /**
   * Keys that changed up to `version` (the snapshot now served), whose build started after
   * `acceptedBeforeBuild` changes had been accepted (by default all of them); the worker sends them.
   * Never throws: a disk that refuses the write is reported in `status()`.
   */
  enqueue(keys: readonly string[], version: string, acceptedBeforeBuild: number = this.#accepted): void {
    const since = this.#unplannedSince ?? this.#clock()
    this.#generation += 1
    for (const key of keys)
      this.#keys.set(key, {generation: this.#generation, since: Math.min(since, this.#keys.get(key)?.since ?? since)})
    if (this.#keys.size > this.#options.maxKeys) {
      const oldest = this.#oldestAt() ?? since
      this.#keys.clear()
      this.#keys.set(GLOBAL_KEY, {generation: this.#generation, since: oldest})
    }
    // A change accepted while this build ran is not in it: it stays unplanned until its own build.
    if (acceptedBeforeBuild >= this.#accepted) this.#unplannedSince = null
    this.#pendingVersion = version
    if (this.#keys.size === 0) this.#lastPurgedVersion = version
    this.#save()
    this.#kick(0)
  }

  status(): PurgeQueueStatus {
    const oldest = this.#oldestAt()
    return {
      depth: this.#keys.size,
      oldestUnpurgedAgeSeconds: oldest === null ? null : Math.max(0, Math.round((this.#clock() - oldest) / 1000)),
      lastPurgedVersion: this.#lastPurgedVersion,
      purgesSent: this.#sent,
      purgesFailed: this.#failed,
      keysPurged: this.#keysPurged,
      deadLetters: this.#deadLetters,
      writable: this.#writeError === undefined,
      writeError: this.#writeError === undefined ? null : errorMessage(this.#writeError).slice(0, 300),
    }
  }

  /** Resolves once nothing is waiting (for tests and shutdown). */
  drained(): Promise<void> {
    if (this.#keys.size === 0 && !this.#running) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#timer)
    clearTimeout(this.#writeTimer)
  }

  #kick(delayMs: number): void {
    if (this.#closed || this.#running || this.#keys.size === 0) return
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => void this.#work(), delayMs)
    this.#timer.unref()
  }

  async #work(): Promise<void> {
    this.#running = true
    // Until the version waited for is still the newest queued: keys queued meanwhile go with it.
    for (let awaited: string | null | undefined; awaited !== this.#pendingVersion;) {
      awaited = this.#pendingVersion
      await this.#options.beforeSend?.(awaited)
    }
    if (this.#closed) return
    // Every key asked for up to `version`, each with the ask it answers.
    const batch = new Map([...this.#keys].map(([key, waiting]) => [key, waiting.generation]))
    const keys = [...batch.keys()]
    const version = this.#pendingVersion
    try {
      await this.#options.adapter.purge(keys)
      this.#sent += 1
      this.#keysPurged += keys.length
      this.#attempt = 0
      const oldestAt = this.#oldestAt()
      this.#forget(batch)
      // With nothing left, the newest version is covered too (its own keys, if any, went in this batch).
      this.#lastPurgedVersion = this.#keys.size === 0 ? this.#pendingVersion : version
      this.#save()
      this.#options.onPurged?.({
        keys: keys.length,
        version,
        durationMs: oldestAt === null ? 0 : this.#clock() - oldestAt,
      })
    } catch (error) {
      this.#failed += 1
      const failure = error instanceof PurgeFailure ? error : new PurgeFailure(errorMessage(error), {cause: error})
      const oldest = this.#oldestAt()
      const tooOld = oldest !== null && this.#clock() - oldest > (this.#options.giveUpAfterMs ?? 86_400_000)
      if (failure.permanent || tooOld) {
        this.#deadLetter(batch, failure)
        this.#options.logger?.warn(`CDN purge given up (dead-lettered): ${failure.message}`)
      } else {
        const delay = this.#nextDelay(failure.retryAfterMs)
        this.#options.logger?.warn(`CDN purge failed, retrying in ${delay} ms: ${failure.message}`)
        this.#running = false
        this.#kick(delay)
        return
      }
    }
    this.#running = false
    if (this.#keys.size > 0) this.#kick(0)
    else for (const resolve of this.#idle.splice(0)) resolve()
  }

  /** Drops the keys `batch` answered; a key asked for again since the batch left stays. */
  #forget(batch: ReadonlyMap<string, number>): void {
    for (const [key, generation] of batch) if (this.#keys.get(key)?.generation === generation) this.#keys.delete(key)
  }

  #nextDelay(retryAfter: number | undefined): number {
    const {initialDelayMs, maxDelayMs} = this.#options.retry ?? {initialDelayMs: 1000, maxDelayMs: 60_000}
    this.#attempt += 1
    const ceiling = backoffDelay(this.#attempt, initialDelayMs, maxDelayMs)
    const jittered = Math.round((this.#options.random ?? Math.random)() * ceiling) // full jitter: replicas do not retry in step
    return Math.max(jittered, retryAfter ?? 0)
  }

  #deadLetter(batch: ReadonlyMap<string, number>, failure: PurgeFailure): void {
    const keys = [...batch.keys()]
    const letter = {
      at: this.#clock(),
      error: failure.message.slice(0, 300),
      keys: keys.slice(0, MAX_KEYS_KEPT_PER_DEAD_LETTER),
      keyCount: keys.length,
    }
    this.#forget(batch)
    this.#deadLetters = [...this.#deadLetters, letter].slice(-MAX_DEAD_LETTERS)
    this.#attempt = 0
    this.#save()
  }
}

/** Temporary files a killed process left behind: nothing reads them, and each holds space. */
function removeLeftovers(directory: string): void {
  let names: string[]
  try {
    names = readdirSync(directory)
  } catch {
    return // no directory yet, or unreadable: the first write says so
  }
  for (const name of names)
    if (name.startsWith(`${QUEUE_FILE}.`) && name.endsWith('.tmp')) removeQuietly(join(directory, name))
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, {force: true})
  } catch {
    // A read-only directory keeps it; the next start tries again.
  }
}
