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

// How a search index's content is made (a step at a time, so it can be built in slices) and moved
// on by a publish; when either is done is search-index.ts's concern.

/** What an index is made from: a snapshot's content, its version, and what changed since an earlier one. */
export interface Indexed {
  readonly catalog: Catalog
  readonly version: string
  readonly history: {since(token: string): ReadonlyMap<string, ItemChange> | undefined}
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

/** An index that follows a line of snapshots: moved on by each publish's changes. */
export interface FollowedState extends IndexedContent {
  version: string
  history: Indexed['history']
  readonly documents: Map<string, SearchDocument>
  /** The items that name each voice, whose `people` text changes with the voice's name. */
  readonly namedBy: Map<string, Set<string>>
  /** The words of every item's tags, counted: the query analyser's loanwords come from them. */
  readonly tagWords: Map<string, number>
  analyse: (word: string) => string[]
}

/** What indexing `snapshot` whole costs, in documents (a KiB of transcript counting as one). */
export function workOf(snapshot: Indexed): number {
  const {episodes, meetups, voices} = snapshot.catalog
  let work = episodes.length + meetups.length + voices.length
  for (const {transcript} of episodes) work += (transcript?.length ?? 0) / 1024
  return work
}

/** A whole index of `snapshot`, built a document (or a transcript) per step. */
export function* indexSteps(snapshot: Indexed): Generator<void, FollowedState> {
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

/** What moving a followed index to a newer snapshot takes: the items to index again, and its work. */
export interface Reindex {
  readonly stale: ReadonlySet<string>
  readonly fresh: ReadonlyMap<string, SearchDocument>
  /** The stale items whose transcript is new or changed (the others keep their transcript's entries). */
  readonly transcribed: ReadonlySet<string>
  readonly work: number
}

/** The changed items, and those naming a changed voice, with what indexing them again costs. */
export function reindexOf(state: FollowedState, snapshot: Indexed, changes: ReadonlyMap<string, ItemChange>): Reindex {
  const stale = new Set(changes.keys())
  for (const change of changes.values())
    if (change.collection === 'voices') for (const naming of state.namedBy.get(change.slug) ?? []) stale.add(naming)
  const fresh = new Map(
    searchDocuments(snapshot.catalog, (collection, slug) => stale.has(itemKeyOf(collection, slug))).map((document) => [
      document.id,
      document,
    ]),
  )
  const transcribed = new Set<string>()
  let work = stale.size
  for (const id of stale) {
    const before = state.documents.get(id)?.transcript
    const after = fresh.get(id)?.transcript
    if (sameBytes(before, after)) continue
    transcribed.add(id)
    work += (after?.length ?? 0) / 1024
  }
  return {stale, fresh, transcribed, work}
}

/** Moves `state` to `snapshot` by `reindex`. */
export function applyReindex(state: FollowedState, snapshot: Indexed, {stale, fresh, transcribed}: Reindex): void {
  for (const id of stale) {
    const before = state.documents.get(id)
    if (before) {
      state.search.remove(before)
      track(state, before, -1)
    }
    if (transcribed.has(id)) state.transcripts.remove(id)
    const after = fresh.get(id)
    if (after) {
      state.search.add(after)
      track(state, after, 1)
    }
  }
  const transcripts = state.transcripts.batch()
  for (const id of transcribed) {
    const transcript = fresh.get(id)?.transcript
    if (transcript) addTranscript(transcripts, id, transcript)
  }
  state.analyse = analyserOf(state.tagWords)
  state.version = snapshot.version
  state.history = snapshot.history
}

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && Buffer.compare(a, b) === 0)

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
