import {z} from 'zod'
import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import type {HistoryStep, SharedHistory} from './shared-history.ts'

/** An item a served version changed, with its ETag in the version before (null: not served then). */
export interface ItemChange {
  collection: CollectionName
  slug: string
  before: string | null
}

/** What one newly served version changed. */
export interface VersionChange {
  version: string
  /** When it was first served, ms since the epoch. */
  at: number
  items: readonly ItemChange[]
}

/** Every version of the last 30 days is kept, and at least the last 1,000, within the two bounds below. */
export const HISTORY_MIN_VERSIONS = 1000
export const HISTORY_MIN_AGE_MS = 30 * 24 * 60 * 60 * 1000
/** Bounds that no rate of edits can pass: the oldest versions go first. */
const HISTORY_MAX_VERSIONS = 100_000
const HISTORY_MAX_ITEM_CHANGES = 200_000

const historySchema = z.object({
  base: z.string(),
  entries: z.array(
    z.object({
      version: z.string(),
      at: z.number(),
      items: z.array(z.object({collection: z.enum(COLLECTION_NAMES), slug: z.string(), before: z.string().nullable()})),
    }),
  ),
})
export type SavedHistory = z.infer<typeof historySchema>

/**
 * The versions served, oldest first, each with the items it changed: what `changes.json` answers a
 * token from. Immutable: each served version makes a new history, so a snapshot holds the one that
 * ends at its own version. A token is a version: `base` (the oldest one a token may name) or any
 * version recorded after it.
 */
export class ChangeHistory {
  readonly base: string
  readonly entries: readonly VersionChange[]
  readonly #itemChanges: number
  /** Other replicas' steps (with Redis): a token this history lacks may lead into it through them. */
  readonly #shared: SharedHistory | undefined
  /** Each version's place, made on the first token read against this history. */
  #positions: Map<string, number> | undefined

  private constructor(
    base: string,
    entries: readonly VersionChange[],
    itemChanges: number,
    shared: SharedHistory | undefined,
  ) {
    this.base = base
    this.entries = entries
    this.#itemChanges = itemChanges
    this.#shared = shared
  }

  /** A history that knows only `version`: tokens older than it are unknown. */
  static startingAt(version: string, shared?: SharedHistory): ChangeHistory {
    return new ChangeHistory(version, [], 0, shared)
  }

  /** This history, also reading other replicas' steps. */
  sharing(shared: SharedHistory | undefined): ChangeHistory {
    return shared === this.#shared ? this : new ChangeHistory(this.base, this.entries, this.#itemChanges, shared)
  }

  /** A history read back from a saved snapshot; undefined when it is not one. */
  static restored(saved: unknown): ChangeHistory | undefined {
    const parsed = historySchema.safeParse(saved)
    if (!parsed.success) return undefined
    const {base, entries} = parsed.data
    return new ChangeHistory(
      base,
      entries,
      entries.reduce((sum, entry) => sum + entry.items.length, 0),
      undefined,
    )
  }

  /** The newest version's step: from the one before it, with the items it changed; none before a change. */
  lastStep(): HistoryStep | undefined {
    const last = this.entries.at(-1)
    return last && {from: this.entries.at(-2)?.version ?? this.base, to: last.version, items: last.items}
  }

  /** The version the history ends at: the newest served. */
  get head(): string {
    return this.entries.at(-1)?.version ?? this.base
  }

  /** This history with `version` served next, having changed `items`; bounded, the oldest first out. */
  after(version: string, at: number, items: readonly ItemChange[]): ChangeHistory {
    if (version === this.head) return this
    const entries = [...this.entries, {version, at, items}]
    let base = this.base
    let itemChanges = this.#itemChanges + items.length
    let dropped = 0
    const kept = () => entries.length - dropped
    for (;;) {
      const oldest = entries[dropped]
      if (!oldest || kept() <= 1) break
      const overBounds = kept() > HISTORY_MAX_VERSIONS || itemChanges > HISTORY_MAX_ITEM_CHANGES
      const pastMinimum = kept() > HISTORY_MIN_VERSIONS && at - oldest.at > HISTORY_MIN_AGE_MS
      if (!overBounds && !pastMinimum) break
      base = oldest.version
      itemChanges -= oldest.items.length
      dropped += 1
    }
    return new ChangeHistory(base, dropped === 0 ? entries : entries.slice(dropped), itemChanges, this.#shared)
  }

  /**
   * The items changed since `token`, each once, with its ETag as of `token`; undefined when the
   * token names no version this history holds (too old, or never served here).
   */
  since(token: string): ReadonlyMap<string, ItemChange> | undefined {
    const start = this.#startOf(token)
    if (start !== undefined) return firstChanges(this.entries.slice(start).flatMap((entry) => entry.items))
    const path = this.#pathFrom(token)
    const reached = path && this.#startOf(path.reached)
    if (!path || reached === undefined) return undefined
    return firstChanges([...path.items, ...this.entries.slice(reached).flatMap((entry) => entry.items)])
  }

  /** Whether `since(token)` would answer: the version is held here, or another replica's steps lead from it. */
  holds(token: string): boolean {
    return this.#startOf(token) !== undefined || this.#pathFrom(token) !== undefined
  }

  /** Another replica's token: the steps that lead from it to a version this history holds. */
  #pathFrom(token: string) {
    return this.#shared?.pathFrom(token, (version) => this.#startOf(version) !== undefined)
  }

  /** The index of the first entry after `token`'s version; undefined when this history does not hold it. */
  #startOf(token: string): number | undefined {
    if (token === this.base) return 0
    this.#positions ??= new Map(this.entries.map((entry, index) => [entry.version, index + 1]))
    return this.#positions.get(token)
  }

  toJSON(): SavedHistory {
    return {base: this.base, entries: this.entries.map((entry) => ({...entry, items: [...entry.items]}))}
  }
}

/** Each item once, with the earliest change's `before` (its ETag as of the token). */
function firstChanges(items: readonly ItemChange[]): ReadonlyMap<string, ItemChange> {
  const changed = new Map<string, ItemChange>()
  for (const item of items) {
    const key = itemKeyOf(item.collection, item.slug)
    if (!changed.has(key)) changed.set(key, item)
  }
  return changed
}

/** `episodes/ep-1-why-we-started`: an item's place in the change feed's order. */
export const itemKeyOf = (collection: CollectionName, slug: string) => `${collection}/${slug}`
