import {IdentityMemo} from '../identity-memo.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import {MAX_SEARCH_LIMIT, type RankedHit, type SearchCue} from '../api/v1/search.ts'
import {cuesOf, type TranscriptCue} from '../../catalog/v1/transcript.ts'
import {itemKeyOf} from './change-history.ts'
import {termsOf} from './hebrew-analysis.ts'
import {words} from './hebrew-text.ts'
import {MATCHING, termQuery, type SearchDocument} from './search-documents.ts'
import type {IndexedContent} from './index-content.ts'
import type {IndexBeingBuilt, Searched} from './search-index.ts'

/** A hit as the search ranks it; the API gives it its shape (api/v1/search.ts). */
export type SearchHit = RankedHit

/**
 * The best hits of a search and how many items matched in all; or, while the snapshot's index is
 * being built (search-index.ts), how many seconds to wait before asking again.
 */
export type SearchAnswer = {ready: true; hits: SearchHit[]; total: number} | IndexBeingBuilt

/**
 * How many bytes of transcripts one search reads to find its hits' cues: four transcripts at the
 * rule's 2 MB limit. Past it, the lower hits answer without a cue: a query matching fifty long
 * transcripts would otherwise parse 100 MB on the event loop, and a client can send many queries.
 */
export const CUE_BYTES_PER_SEARCH = 8 * 1024 * 1024
const SNIPPET_WORDS_BEFORE = 6
const SNIPPET_WORDS_AFTER = 12

/** The words around `at` in `written`, with an ellipsis where the text goes on. */
function around(written: readonly string[], at: number): string {
  const start = Math.max(0, at - SNIPPET_WORDS_BEFORE)
  const end = Math.min(written.length, at + SNIPPET_WORDS_AFTER)
  return `${start > 0 ? '… ' : ''}${written.slice(start, end).join(' ')}${end < written.length ? ' …' : ''}`
}

/** Where in `text` the first word whose terms are in `matched` is, as written; -1 when none is. */
function firstMatch(written: readonly string[], matched: ReadonlySet<string>): number {
  return written.findIndex((token) => words(token).some((word) => termsOf(word).some((term) => matched.has(term))))
}

/** The words around the first word of the item's fields whose terms matched, as written in the catalog. */
function snippetOf(document: SearchDocument, matched: ReadonlySet<string>): string | undefined {
  for (const field of ['body', 'takeaways', 'title', 'tags', 'people'] as const) {
    const written = document[field].split(/\s+/).filter(Boolean)
    const at = firstMatch(written, matched)
    if (at !== -1) return around(written, at)
  }
  return undefined
}

/**
 * The cue of the item's transcript that says the most of what matched there (the first of equals, and
 * the first to say all of it ends the scan): where a player starts.
 */
function cueOf(transcript: Uint8Array, inTranscript: ReadonlySet<string>): SearchCue | undefined {
  let best: {cue: TranscriptCue; written: string[]; at: number; said: number} | undefined
  for (const cue of cuesOf(transcript)) {
    const written = cue.text.split(/\s+/).filter(Boolean)
    const said = new Set(
      written.flatMap((token) => words(token).flatMap(termsOf)).filter((term) => inTranscript.has(term)),
    )
    if (said.size > (best?.said ?? 0)) best = {cue, written, at: firstMatch(written, inTranscript), said: said.size}
    if (said.size === inTranscript.size) break
  }
  if (!best) return undefined
  const {cue, written, at} = best
  return {start_seconds: cue.start, end_seconds: cue.end, speaker: cue.speaker, text: around(written, at)}
}

/** An item's match over all its fields: what MiniSearch found in the others, and what its transcript says. */
interface Ranked {
  readonly document: SearchDocument
  score: number
  /** The terms of the item's other fields that matched (a snippet is found with them). */
  readonly inFields: ReadonlySet<string>
  /** The terms of the transcript that matched (its cue is found with them). */
  readonly inTranscript: ReadonlySet<string>
}

/**
 * Ranks catalog items for a question or keywords, in Hebrew or English: one score (BM25+ with field
 * boosts, typo and prefix tolerance: MiniSearch's over the fields, and the transcript index's,
 * added as MiniSearch adds its fields) and one order, highest score first, equal scores in the
 * catalog's list order (episodes, meetups, voices). Only the best `limit` are given their snippet
 * and cue: a common word matches tens of thousands of items at 100,000.
 */
export function searchCatalog(
  snapshot: Searched,
  query: string,
  collections: readonly CollectionName[],
  limit: number,
): SearchAnswer {
  const lookup = snapshot.searchIndex.of(snapshot)
  if (!lookup.ready) return lookup
  const allowed = new Set(collections)
  const results = ranked(lookup.content, query, (document) => allowed.has(document.collection))
  const tied = results.some((result, index) => index > 0 && result.score === results[index - 1]?.score)
  if (tied) {
    const place = listPlaces(snapshot)
    results.sort((a, b) => b.score - a.score || (place.get(a.document.id) ?? 0) - (place.get(b.document.id) ?? 0))
  }
  let cueBytesLeft = CUE_BYTES_PER_SEARCH
  const hits = results.slice(0, limit).map(({document, score, inFields, inTranscript}, rank) => {
    const {collection, slug, title, url, api_url, transcript} = document
    // Only hits a page can show read their transcript (a common word may match thousands of them),
    // and only while the search's budget lasts.
    const readable =
      transcript !== undefined && inTranscript.size > 0 && rank < MAX_SEARCH_LIMIT && transcript.length <= cueBytesLeft
    if (readable) cueBytesLeft -= transcript.length
    const cue = readable ? cueOf(transcript, inTranscript) : undefined
    return {
      collection,
      slug,
      title,
      url,
      api_url,
      score: Math.round(score * 100) / 100,
      snippet: snippetOf(document, inFields) ?? cue?.text ?? title,
      cue: cue ?? null,
    }
  })
  return {ready: true, hits, total: results.length}
}

/**
 * Both indexes' matches of the query, as one MiniSearch over every field would score them: each
 * item's raw scores added, then multiplied by how many of the query's terms it matched anywhere.
 */
function ranked(indexed: IndexedContent, query: string, wanted: (document: SearchDocument) => boolean): Ranked[] {
  const {search, transcripts, documents, analyse} = indexed
  const matches = new Map<string, Ranked & {queryTerms: Set<string>}>()
  for (const result of search.search(query, {processTerm: analyse})) {
    const document = typeof result.id === 'string' ? documents.get(result.id) : undefined
    if (!document || !wanted(document)) continue
    // MiniSearch's score is already multiplied by the query terms it matched: taken back out here.
    const raw = result.score / (result.queryTerms.length || 1)
    const queryTerms = new Set(result.queryTerms)
    matches.set(document.id, {
      document,
      score: raw,
      inFields: new Set(result.terms),
      inTranscript: new Set(),
      queryTerms,
    })
  }
  const termQueries = words(query).flatMap(analyse).filter(Boolean).map(termQuery)
  for (const [id, said] of transcripts.search(termQueries, search.documentCount, MATCHING.weights)) {
    const known = matches.get(id)
    if (known) {
      known.score += said.score
      for (const term of said.queryTerms) known.queryTerms.add(term)
      matches.set(id, {...known, inTranscript: said.matched})
      continue
    }
    const document = documents.get(id)
    if (document && wanted(document))
      matches.set(id, {
        document,
        score: said.score,
        inFields: new Set(),
        inTranscript: said.matched,
        queryTerms: said.queryTerms,
      })
  }
  return [...matches.values()]
    .map((match) => ({...match, score: match.score * (match.queryTerms.size || 1)}))
    .sort((a, b) => b.score - a.score)
}

const places = new IdentityMemo<Searched, ReadonlyMap<unknown, number>>()

/** Each item's place in the catalog's lists, which orders equal scores (made once per snapshot, when needed). */
function listPlaces(snapshot: Searched): ReadonlyMap<unknown, number> {
  return places.get(snapshot, () => {
    const {episodes, meetups, voices} = snapshot.catalog
    const keys = [
      ...episodes.map(({value}) => itemKeyOf('episodes', value.slug)),
      ...meetups.map(({value}) => itemKeyOf('meetups', value.slug)),
      ...voices.map(({value}) => itemKeyOf('voices', value.slug)),
    ]
    return new Map(keys.map((key, index) => [key, index]))
  })
}
