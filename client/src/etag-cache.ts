/** An answer kept for revalidation: its ETag and its body as sent. */
export interface CachedAnswer {
  etag: string
  text: string
}

/**
 * Answers by URL, at most `maxEntries`, the least recently used out first (a Map keeps insertion
 * order, so an entry read is moved to the end). Bodies are kept as text and parsed per use, so a
 * caller that changes what it got cannot change what the next caller gets.
 */
export class EtagCache {
  readonly #entries = new Map<string, CachedAnswer>()
  readonly #maxEntries: number

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  get(url: string): CachedAnswer | undefined {
    const answer = this.#entries.get(url)
    if (answer) {
      this.#entries.delete(url)
      this.#entries.set(url, answer)
    }
    return answer
  }

  set(url: string, answer: CachedAnswer): void {
    this.#entries.delete(url)
    if (this.#maxEntries < 1) return
    this.#entries.set(url, answer)
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break
      this.#entries.delete(oldest)
    }
  }
}
