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
 * One index per line of snapshots (a catalog and the snapshots built from it), which follows the
 * newest one searched: each publish re-indexes only the items it changed (its change history says
 * which), where indexing the whole catalog takes seconds at 100,000 items. A search of a snapshot
 * older than the one followed (a request that began before a publish) gets an index of its own.
 */
export class SearchIndex {
  #followed: FollowedState | undefined
  readonly #older = new WeakMap<Searched, IndexedContent>()

  /** The index answering for exactly `snapshot`'s content. */
  of(snapshot: Searched): IndexedContent {
    const followed = this.#followed
    if (followed?.version === snapshot.version) return followed
    const older = this.#older.get(snapshot)
    if (older) return older
    const changes = followed && snapshot.history.since(followed.version)
    if (followed && changes && changes.size * 2 <= followed.documents.size) {
      reindex(followed, snapshot, changes)
      return followed
    }
    if (followed?.history.since(snapshot.version)) {
      const own = indexOf(snapshot)
      this.#older.set(snapshot, own)
      return own
    }
    return (this.#followed = indexOf(snapshot))
  }
}

function indexOf(snapshot: Searched): FollowedState {
  const documents = searchDocuments(snapshot.catalog)
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
  search.addAll(documents)
  const transcripts = new TranscriptIndex()
  transcripts.addAll(transcriptsOf(documents))
  transcripts.trim()
  const state: FollowedState = {
    version: snapshot.version,
    history: snapshot.history,
    search,
    transcripts,
    documents: new Map(),
    namedBy: new Map(),
    tagWords: new Map(),
    analyse: () => [],
  }
  for (const document of documents) track(state, document, 1)
  state.analyse = analyserOf(state.tagWords)
  return state
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
  state.transcripts.addAll(transcriptsOf(fresh.values()))
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

/** The documents' transcripts as the transcript index takes them, read from their bytes one at a time. */
function* transcriptsOf(documents: Iterable<SearchDocument>): Generator<[string, string]> {
  for (const document of documents) if (document.transcript) yield [document.id, transcriptText(document.transcript)]
}
