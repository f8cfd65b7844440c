// A collection's items by slug. At 100k items, making a Map of its own for every snapshot was most
// of an edit's time, so successive snapshots share one Map and each keeps beside it only the slugs
// changed since that Map was made (an edit changes one or two). Immutable, like the snapshot: a
// change makes a new index, and past MAX_CHANGES one with a Map of its own.
import type {Representation} from './representation.ts'

type Item = Representation<Buffer>

/** How many changed slugs an index carries beside its shared Map before the next one gets its own. */
export const MAX_CHANGES = 1024

export class SlugIndex {
  readonly #shared: ReadonlyMap<string, Item>
  /** undefined: the slug is no longer served. */
  readonly #changes: ReadonlyMap<string, Item | undefined>

  private constructor(shared: ReadonlyMap<string, Item>, changes: ReadonlyMap<string, Item | undefined>) {
    this.#shared = shared
    this.#changes = changes
  }

  /** An index with a Map of its own. */
  static of(items: Iterable<readonly [string, Item]>): SlugIndex {
    return new SlugIndex(new Map(items), new Map())
  }

  get(slug: string): Item | undefined {
    if (this.#changes.size === 0) return this.#shared.get(slug)
    const changed = this.#changes.get(slug)
    return changed !== undefined || this.#changes.has(slug) ? changed : this.#shared.get(slug)
  }

  /**
   * This index with the `removed` slugs gone, then the `added` items in (a slug both removed and
   * added is served as added); undefined when that would carry more than MAX_CHANGES changes.
   */
  with(removed: readonly string[], added: readonly (readonly [string, Item])[]): SlugIndex | undefined {
    if (this.#changes.size + removed.length + added.length > MAX_CHANGES) return undefined
    const changes = new Map(this.#changes)
    for (const slug of removed) changes.set(slug, undefined)
    for (const [slug, item] of added) changes.set(slug, item)
    return new SlugIndex(this.#shared, changes)
  }
}
