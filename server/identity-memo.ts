// Entries, lists and snapshots are immutable, and a patched catalog keeps the unchanged ones: what
// is made from one of them stays right while the object is the same, and goes when it does. This is
// the one place that remembers such values (an item's bytes, a sitemap line, an id index).

/** Values made from objects by their identity, each kept for as long as its object lives. */
export class IdentityMemo<K extends object, V> {
  readonly #made = new WeakMap<K, V>()

  /**
   * The value kept for `key`; made when none is kept, or when `fits` says the kept one was made with
   * other inputs than today's (a base URL, a list of voices). `make` sees that stale value, to reuse
   * what it can.
   */
  get(key: K, make: (key: K, stale: V | undefined) => V, fits?: (kept: V) => boolean): V {
    const kept = this.#made.get(key)
    if (kept !== undefined && (fits === undefined || fits(kept))) return kept
    const made = make(key, kept)
    this.#made.set(key, made)
    return made
  }
}
