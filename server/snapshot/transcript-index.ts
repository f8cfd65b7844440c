import SearchableMap from 'minisearch/SearchableMap'
import {termsOf} from './hebrew-analysis.ts'
import {words} from './hebrew-text.ts'

/**
 * The transcripts' part of the catalog search, kept apart from the MiniSearch index of the other
 * fields because of its size: 300 cues on one episode in ten put 15 million (term, episode) pairs
 * into the index at 100,000 documents, which MiniSearch holds as a Map per term and field (about
 * 34 bytes a pair). Here a pair is one 32-bit number in a typed array per term: the episode's
 * number in the upper 24 bits and the term's count in the lower 8 (a count of 255 or more is kept
 * apart, by term and number). The dictionary
 * of terms is MiniSearch's own radix tree, so prefix and typo matching work as they do for the
 * other fields, and a hit is scored with the same BM25+ (search.ts adds the two scores).
 */

const COUNT_BITS = 8
const MAX_COUNT = (1 << COUNT_BITS) - 1
const MAX_NUMBERS = 2 ** (32 - COUNT_BITS)
/** A (term, number) pair's key among the large counts: exact below 2^53, for fewer than 2^29 terms. */
const largeCountKey = (termId: number, number: number) => termId * MAX_NUMBERS + number
// MiniSearch's BM25+ parameters (its defaults), so a word said scores as a word written.
const BM25 = {k: 1.2, b: 0.7, d: 0.5}

/** How a query term is looked up: as written, by prefix, with typos; each weighted as MiniSearch weighs them. */
export interface TermQuery {
  readonly term: string
  readonly prefix: boolean
  /** The edit distance allowed (0: none). */
  readonly typos: number
}

/** What the transcripts say of one item for a query, before the query's quality factor. */
export interface TranscriptMatch {
  score: number
  /** The query terms that matched. */
  readonly queryTerms: Set<string>
  /** The terms of the transcript that matched them (a prefix or a typo away). */
  readonly matched: Set<string>
}

export interface MatchWeights {
  readonly prefix: number
  readonly fuzzy: number
}

export class TranscriptIndex {
  /**
   * `compactAfter`: how many removed items' pairs may stay (while they are fewer than the live
   * ones) before everything is renumbered.
   */
  constructor(compactAfter = 1024) {
    this.#compactAfter = compactAfter
  }

  readonly #compactAfter: number
  #terms = new SearchableMap<number>()
  #postings: Uint32Array[] = []
  #used: number[] = []
  /** The item each number stands for; undefined once the item was removed (until compaction). */
  #ids: (string | undefined)[] = []
  /** Each number's count of distinct words, BM25's field length. */
  #lengths: number[] = []
  readonly #numberOf = new Map<string, number>()
  #totalLength = 0
  #removed = 0
  #compactions = 0
  /** The counts of 255 and more, by term and number (the pair holds 255). */
  #largeCounts = new Map<number, number>()
  /** A batch's count of each term in the transcript it is reading; all zero between transcripts. */
  #counts = new Uint32Array(1024)

  /** Indexes `text` as the transcript of item `id` (replacing what it had). */
  add(id: string, text: string): void {
    this.batch().add(id, text)
  }

  /**
   * A batch of transcripts to index, one at a time. Transcripts say the same words many times over:
   * each word's terms are looked up once for the whole batch, and forgotten after it.
   */
  batch(): {add(id: string, text: string): void} {
    const known = new Map<string, {termIds: readonly number[]; lastSaidBy: number}>()
    let compactions = this.#compactions
    const add = (id: string, text: string) => {
      this.remove(id)
      const tokens = words(text)
      if (tokens.length === 0) return
      if (this.#ids.length >= MAX_NUMBERS) this.#compact()
      // A compaction renumbers the terms.
      if (compactions !== this.#compactions) {
        known.clear()
        compactions = this.#compactions
      }
      const number = this.#ids.length
      // Counted in a scratch array by term, not a Map: a build counts tens of millions of words.
      const touched: number[] = []
      let length = 0
      try {
        for (const token of tokens) {
          let word = known.get(token)
          if (!word)
            known.set(token, (word = {termIds: termsOf(token).filter(Boolean).map(this.#termId), lastSaidBy: -1}))
          if (word.lastSaidBy !== number) {
            word.lastSaidBy = number
            length += 1
          }
          for (const termId of word.termIds) {
            const count = this.#counts[termId] ?? 0
            if (count === 0) touched.push(termId)
            this.#counts[termId] = count + 1
          }
        }
        for (const termId of touched) {
          const count = this.#counts[termId] ?? 0
          // A word said more than 254 times keeps its count apart: BM25 reads the whole count.
          if (count >= MAX_COUNT) this.#largeCounts.set(largeCountKey(termId, number), count)
          this.#append(termId, (number << COUNT_BITS) | Math.min(count, MAX_COUNT))
        }
      } finally {
        // The scratch array is all zeros between transcripts, whatever happened to this one.
        for (const termId of touched) this.#counts[termId] = 0
      }
      this.#ids.push(id)
      this.#lengths.push(length)
      this.#numberOf.set(id, number)
      this.#totalLength += length
    }
    return {add}
  }

  /** Takes item `id`'s transcript out; its terms are dropped at the next compaction. */
  remove(id: string): void {
    const number = this.#numberOf.get(id)
    if (number === undefined) return
    this.#numberOf.delete(id)
    this.#ids[number] = undefined
    this.#totalLength -= this.#lengths[number] ?? 0
    this.#removed += 1
    // Removed items' pairs stay until they outnumber the live ones, then everything is renumbered.
    if (this.#removed > this.#compactAfter && this.#removed > this.#numberOf.size) this.#compact()
  }

  /** The number of items with a transcript. */
  get size(): number {
    return this.#numberOf.size
  }

  /** The number of terms in the dictionary, those only removed items said included (until compaction). */
  get termCount(): number {
    return this.#terms.size
  }

  /** Each posting array's spare room given back: after a full build, when no more are coming soon. */
  trim(): void {
    this.#postings = this.#postings.map((posting, termId) => posting.slice(0, this.#used[termId] ?? 0))
  }

  /**
   * Scores the items whose transcripts say the query's terms, as MiniSearch would score a field of
   * boost 1 among `documentCount` documents (every searchable item, not only those with a transcript).
   */
  search(queries: readonly TermQuery[], documentCount: number, weights: MatchWeights): Map<string, TranscriptMatch> {
    const results = new Map<string, TranscriptMatch>()
    const averageLength = documentCount > 0 ? this.#totalLength / documentCount : 0
    for (const query of queries) {
      const derived = new Map<string, number>()
      const exact = this.#terms.get(query.term)
      if (exact !== undefined) derived.set(query.term, 1)
      if (query.prefix)
        for (const [term] of this.#terms.atPrefix(query.term)) {
          const distance = term.length - query.term.length
          if (distance > 0) derived.set(term, (weights.prefix * term.length) / (term.length + 0.3 * distance))
        }
      if (query.typos > 0)
        for (const [term, [, distance]] of this.#terms.fuzzyGet(query.term, query.typos))
          if (distance > 0 && !derived.has(term))
            derived.set(term, (weights.fuzzy * term.length) / (term.length + distance))
      for (const [term, weight] of derived) {
        const termId = this.#terms.get(term)
        if (termId !== undefined) this.#score(query.term, term, termId, weight, documentCount, averageLength, results)
      }
    }
    return results
  }

  #score(
    queryTerm: string,
    term: string,
    termId: number,
    weight: number,
    documentCount: number,
    averageLength: number,
    results: Map<string, TranscriptMatch>,
  ): void {
    const posting = this.#postings[termId]
    const used = this.#used[termId] ?? 0
    if (!posting) return
    let matching = 0
    for (let index = 0; index < used; index++)
      if (this.#ids[(posting[index] ?? 0) >>> COUNT_BITS] !== undefined) matching++
    const inverseFrequency = Math.log(1 + (documentCount - matching + 0.5) / (matching + 0.5))
    for (let index = 0; index < used; index++) {
      const pair = posting[index] ?? 0
      const number = pair >>> COUNT_BITS
      const id = this.#ids[number]
      if (id === undefined) continue
      const packed = pair & MAX_COUNT
      const count = packed === MAX_COUNT ? (this.#largeCounts.get(largeCountKey(termId, number)) ?? packed) : packed
      const length = this.#lengths[number] ?? 0
      const score =
        weight *
        inverseFrequency *
        (BM25.d + (count * (BM25.k + 1)) / (count + BM25.k * (1 - BM25.b + (BM25.b * length) / averageLength)))
      const result = results.get(id)
      if (result) {
        result.score += score
        result.queryTerms.add(queryTerm)
        result.matched.add(term)
      } else results.set(id, {score, queryTerms: new Set([queryTerm]), matched: new Set([term])})
    }
  }

  // An arrow function: a batch passes it to map.
  readonly #termId = (term: string): number => {
    const known = this.#terms.get(term)
    if (known !== undefined) return known
    const termId = this.#postings.length
    this.#terms.set(term, termId)
    this.#postings.push(new Uint32Array(4))
    this.#used.push(0)
    if (termId >= this.#counts.length) {
      const grown = new Uint32Array(this.#counts.length * 2)
      grown.set(this.#counts)
      this.#counts = grown
    }
    return termId
  }

  #append(termId: number, pair: number): void {
    let posting = this.#postings[termId] ?? new Uint32Array(4)
    const used = this.#used[termId] ?? 0
    if (used === posting.length) {
      const grown = new Uint32Array(Math.max(4, posting.length * 2))
      grown.set(posting)
      posting = grown
    }
    posting[used] = pair
    this.#postings[termId] = posting
    this.#used[termId] = used + 1
  }

  /** Renumbers the live items densely and drops the terms only removed items said. */
  #compact(): void {
    const renumbered = new Int32Array(this.#ids.length).fill(-1)
    const ids: string[] = []
    const lengths: number[] = []
    this.#ids.forEach((id, number) => {
      if (id === undefined) return
      renumbered[number] = ids.length
      this.#numberOf.set(id, ids.length)
      ids.push(id)
      lengths.push(this.#lengths[number] ?? 0)
    })
    const terms = new SearchableMap<number>()
    const postings: Uint32Array[] = []
    const largeCounts = new Map<number, number>()
    for (const [term, termId] of this.#terms) {
      const posting = this.#postings[termId]
      const used = this.#used[termId] ?? 0
      if (!posting) continue
      const kept: number[] = []
      for (let index = 0; index < used; index++) {
        const pair = posting[index] ?? 0
        const number = renumbered[pair >>> COUNT_BITS] ?? -1
        if (number === -1) continue
        kept.push((number << COUNT_BITS) | (pair & MAX_COUNT))
        const large = this.#largeCounts.get(largeCountKey(termId, pair >>> COUNT_BITS))
        if (large !== undefined) largeCounts.set(largeCountKey(postings.length, number), large)
      }
      if (kept.length === 0) continue
      terms.set(term, postings.length)
      postings.push(Uint32Array.from(kept))
    }
    this.#terms = terms
    this.#largeCounts = largeCounts
    this.#postings = postings
    this.#used = postings.map((posting) => posting.length)
    this.#ids = ids
    this.#lengths = lengths
    this.#removed = 0
    this.#compactions += 1
  }
}
