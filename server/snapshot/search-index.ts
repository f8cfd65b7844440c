import MiniSearch from 'minisearch'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import {itemKeyOf, type ItemChange} from './change-history.ts'
import {termsOf} from './hebrew-analysis.ts'
import {words} from './hebrew-text.ts'
import {
  FIELD_BOOST,
  MATCHING,
  queryAnalyser,
  SEARCH_FIELDS,
  searchDocuments,
  transcriptText,
  type SearchDocument,
} from './search-documents.ts'
import {TranscriptIndex} from './transcript-index.ts'

/** What a snapshot offers the search: its content, its version, and what changed since an earlier one. */
export interface Searched {
  readonly catalog: Catalog
  readonly version: string
  readonly history: {since(token: string): ReadonlyMap<string, ItemChange> | undefined}
  readonly searchIndex: SearchIndex
}

/** The index of one snapshot's content, ready to search. */
export interface IndexedContent {
  readonly search: MiniSearch<SearchDocument>
  /** What the episodes' transcripts say, indexed apart (transcript-index.ts). */
  readonly transcripts: TranscriptIndex
  readonly documents: ReadonlyMap<string, SearchDocument>
  /** What a query word is searched as (search-documents.ts's queryAnalyser, over this content's tags). */
  readonly analyse: (word: string) => string[]
}

interface FollowedState extends IndexedContent {
  version: string
  history: Searched['history']
  readonly documents: Map<string, SearchDocument>
  /** The items that name each voice, whose `people` text changes with the voice's name. */
  readonly namedBy: Map<string, Set<string>>
  /** The words of every item's tags, counted: the query analyser's loanwords come from them. */
  readonly tagWords: Map<string, number>
  analyse: (word: string) => string[]
}

/**
 * The most work a search does to build a whole index before answering: about 100 ms, counted in
 * documents, a KiB of transcript counting as one (each takes about 40 µs to index). The sample
 * catalog is a few hundred; one of 100,000 items would hold every other request back for seconds,
 * so its index is built in the background while searches hear that it is being built (a 503 with
 * Retry-After over HTTP). Counted, not timed, so that a busy machine answers as a quiet one does.
 */
const SYNC_INDEX_WORK = 2_500
const MS_PER_WORK = 0.045
/** How long each slice of a background build holds the event loop. */
const SLICE_MS = 20

/** What a search of a snapshot gets: its index, or word that it is being built. */
export type IndexLookup = {ready: true; content: IndexedContent} | {ready: false; retryAfterSeconds: number}

/**
 * One index per line of snapshots (a catalog and the snapshots built from it), which follows the
 * newest one searched: each publish re-indexes only the items it changed (its change history says
 * which). A whole index larger than `syncWork` is built in the background, a slice at a time, one
 * build at a time. A search of a snapshot older than the one followed (a request that began before
 * a publish) gets an index of its own when it is small enough to build at once.
 */
export class SearchIndex {
  #followed: FollowedState | undefined
  #building: {steps: Iterator<void, FollowedState>; readyBy: number} | undefined
  readonly #older = new WeakMap<Searched, IndexedContent>()
  readonly #syncWork: number

  constructor(syncWork = SYNC_INDEX_WORK) {
    this.#syncWork = syncWork
  }

  /** The index answering for exactly `snapshot`'s content, or how long until one may be ready. */
  of(snapshot: Searched): IndexLookup {
    const followed = this.#followed
    if (followed?.version === snapshot.version) return {ready: true, content: followed}
    const older = this.#older.get(snapshot)
    if (older) return {ready: true, content: older}
    const changes = followed && snapshot.history.since(followed.version)
    if (followed && changes && changes.size * 2 <= followed.documents.size) {
      reindex(followed, snapshot, changes)
      return {ready: true, content: followed}
    }
    const work = workOf(snapshot)
    if (followed?.history.since(snapshot.version)) {
      if (work > this.#syncWork) return this.#notYet()
      const own = finish(indexSteps(snapshot))
      this.#older.set(snapshot, own)
      return {ready: true, content: own}
    }
    // One whole build at a time: a newer snapshot's search waits for it, then moves it on.
    if (this.#building) return this.#notYet()
    if (work <= this.#syncWork) return {ready: true, content: (this.#followed = finish(indexSteps(snapshot)))}
    this.#building = {steps: indexSteps(snapshot), readyBy: performance.now() + work * MS_PER_WORK}
    this.#continue()
    return this.#notYet()
  }

  /**
   * Whether a search of `snapshot` would be answered at once, without starting a background build:
   * what a page that shows an example answer asks before it searches.
   */
  answersAtOnce(snapshot: Searched): boolean {
    const followed = this.#followed
    if (followed?.version === snapshot.version || this.#older.has(snapshot)) return true
    const changes = followed && snapshot.history.since(followed.version)
    if (followed && changes && changes.size * 2 <= followed.documents.size) return true
    return workOf(snapshot) <= this.#syncWork
  }

  /** Resolves once `snapshot` can be searched (a benchmark or a test waiting out a background build). */
  async ready(snapshot: Searched): Promise<IndexedContent> {
    for (;;) {
      const lookup = this.of(snapshot)
      if (lookup.ready) return lookup.content
      await new Promise((resolve) => setTimeout(resolve, SLICE_MS))
    }
  }

  #continue(): void {
    // Unreferenced: a build in progress does not hold the process open at shutdown.
    setImmediate(() => {
      const building = this.#building
      if (!building) return
      try {
        const built = runFor(building.steps, SLICE_MS)
        if (!built) return this.#continue()
        this.#followed = built
      } catch {
        // Left for the next search to start again (a transcript that cannot be read is left out
        // by the steps themselves).
      }
      this.#building = undefined
    }).unref()
  }

  #notYet(): IndexLookup {
    const left = this.#building ? this.#building.readyBy - performance.now() : 0
    return {ready: false, retryAfterSeconds: Math.max(1, Math.ceil(left / 1000))}
  }
}

/** What indexing `snapshot` whole costs, in documents (a KiB of transcript counting as one). */
function workOf(snapshot: Searched): number {
  const {episodes, meetups, voices} = snapshot.catalog
  let work = episodes.length + meetups.length + voices.length
  for (const {transcript} of episodes) work += (transcript?.length ?? 0) / 1024
  return work
}

/** Runs `steps` for up to `ms`: what they built when they finish, undefined when time ran out first. */
function runFor<T>(steps: Iterator<void, T>, ms: number): T | undefined {
  const deadline = performance.now() + ms
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
    if (performance.now() >= deadline) return undefined
  }
}

function finish<T>(steps: Iterator<void, T>): T {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/** A whole index of `snapshot`, built a document (or a transcript) per step. */
function* indexSteps(snapshot: Searched): Generator<void, FollowedState> {
  const documents = searchDocuments(snapshot.catalog)
  yield
  const search = new MiniSearch<SearchDocument>({
    fields: [...SEARCH_FIELDS],
    tokenize: words,
    processTerm: termsOf,
    searchOptions: {
      boost: FIELD_BOOST,
      fuzzy: MATCHING.fuzzy,
      prefix: MATCHING.prefix,
      weights: MATCHING.weights,
      maxFuzzy: MATCHING.maxTypos,
    },
  })
  const state: FollowedState = {
    version: snapshot.version,
    history: snapshot.history,
    search,
    transcripts: new TranscriptIndex(),
    documents: new Map(),
    namedBy: new Map(),
    tagWords: new Map(),
    analyse: () => [],
  }
  for (const document of documents) {
    search.add(document)
    track(state, document, 1)
    yield
  }
  const transcripts = state.transcripts.batch()
  for (const document of documents) {
    if (!document.transcript) continue
    addTranscript(transcripts, document.id, document.transcript)
    yield
  }
  state.transcripts.trim()
  state.analyse = analyserOf(state.tagWords)
  return state
}

/** Indexes one transcript; one that cannot be read is left out of the search, not the whole index. */
function addTranscript(transcripts: {add(id: string, text: string): void}, id: string, bytes: Uint8Array): void {
  let text: string
  try {
    text = transcriptText(bytes)
  } catch {
    return
  }
  transcripts.add(id, text)
}

/** Moves `state` to `snapshot`: the changed items, and those naming a changed voice, are indexed again. */
function reindex(state: FollowedState, snapshot: Searched, changes: ReadonlyMap<string, ItemChange>): void {
  const stale = new Set(changes.keys())
  for (const change of changes.values())
    if (change.collection === 'voices') for (const naming of state.namedBy.get(change.slug) ?? []) stale.add(naming)
  const fresh = new Map(
    searchDocuments(snapshot.catalog, (collection, slug) => stale.has(itemKeyOf(collection, slug))).map((document) => [
      document.id,
      document,
    ]),
  )
  for (const id of stale) {
    const before = state.documents.get(id)
    if (before) {
      state.search.remove(before)
      state.transcripts.remove(id)
      track(state, before, -1)
    }
    const after = fresh.get(id)
    if (after) {
      state.search.add(after)
      track(state, after, 1)
    }
  }
  const transcripts = state.transcripts.batch()
  for (const document of fresh.values())
    if (document.transcript) addTranscript(transcripts, document.id, document.transcript)
  state.analyse = analyserOf(state.tagWords)
  state.version = snapshot.version
  state.history = snapshot.history
}

/** Adds (`1`) or takes away (`-1`) a document's place in the state's lookups. */
function track(state: FollowedState, document: SearchDocument, delta: 1 | -1): void {
  if (delta === 1) state.documents.set(document.id, document)
  else state.documents.delete(document.id)
  for (const voice of document.voices) {
    const naming = state.namedBy.get(voice) ?? new Set<string>()
    if (delta === 1) naming.add(document.id)
    else naming.delete(document.id)
    if (naming.size === 0) state.namedBy.delete(voice)
    else state.namedBy.set(voice, naming)
  }
  for (const word of words(document.tags)) {
    const count = (state.tagWords.get(word) ?? 0) + delta
    if (count <= 0) state.tagWords.delete(word)
    else state.tagWords.set(word, count)
  }
}

// Sorted: the loanwords, and so every score, do not depend on the order the words were first seen.
const analyserOf = (tagWords: ReadonlyMap<string, number>) => queryAnalyser([...tagWords.keys()].sort())
