import type {SearchResult} from 'minisearch'
import type {CollectionName} from '../../catalog/v1/links.ts'
import {MAX_SEARCH_LIMIT, type RankedHit, type SearchCue} from '../api/v1/search.ts'
import {cuesOf, type TranscriptCue} from '../../catalog/v1/transcript.ts'
import {itemKeyOf} from './change-history.ts'
import {termsOf} from './hebrew-analysis.ts'
import {words} from './hebrew-text.ts'
import type {SearchDocument} from './search-documents.ts'
import type {Searched} from './search-index.ts'

/** A hit as the search ranks it; the API gives it its shape (api/v1/search.ts). */
export type SearchHit = RankedHit

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

/**
 * Ranks catalog items for a question or keywords, in Hebrew or English: one score (MiniSearch's
 * BM25+ with field boosts, typo and prefix tolerance) and one order, highest score first, equal
 * scores in the catalog's list order (episodes, meetups, voices).
 */
export function searchCatalog(snapshot: Searched, query: string, collections: readonly CollectionName[]): SearchHit[] {
  const {search, documents, analyse} = snapshot.searchIndex.of(snapshot)
  const allowed = new Set(collections)
  const documentOf = (result: SearchResult) => (typeof result.id === 'string' ? documents.get(result.id) : undefined)
  const results = search.search(query, {
    processTerm: analyse,
    filter: (result) => {
      const collection = documentOf(result)?.collection
      return collection !== undefined && allowed.has(collection)
    },
  })
  const tied = results.some((result, index) => index > 0 && result.score === results[index - 1]?.score)
  if (tied) {
    const place = listPlaces(snapshot)
    results.sort((a, b) => b.score - a.score || (place.get(a.id) ?? 0) - (place.get(b.id) ?? 0))
  }
  let cueBytesLeft = CUE_BYTES_PER_SEARCH
  return results.flatMap((result, rank) => {
    const document = documentOf(result)
    if (!document) return []
    const {collection, slug, title, url, api_url} = document
    // Only hits a page can show read their transcript (a common word may match thousands of them),
    // and only while the search's budget lasts.
    const {transcript} = document
    const inTranscript =
      transcript && rank < MAX_SEARCH_LIMIT && transcript.length <= cueBytesLeft
        ? new Set(Object.keys(result.match).filter((term) => result.match[term]?.includes('transcript')))
        : undefined
    const readable = transcript !== undefined && inTranscript !== undefined && inTranscript.size > 0
    if (readable) cueBytesLeft -= transcript.length
    const cue = readable ? cueOf(transcript, inTranscript) : undefined
    return [
      {
        collection,
        slug,
        title,
        url,
        api_url,
        score: Math.round(result.score * 100) / 100,
        snippet: snippetOf(document, new Set(result.terms)) ?? cue?.text ?? title,
        cue: cue ?? null,
      },
    ]
  })
}

const places = new WeakMap<Searched, ReadonlyMap<unknown, number>>()

/** Each item's place in the catalog's lists, which orders equal scores (made once per snapshot, when needed). */
function listPlaces(snapshot: Searched): ReadonlyMap<unknown, number> {
  let place = places.get(snapshot)
  if (!place) {
    const {episodes, meetups, voices} = snapshot.catalog
    const keys = [
      ...episodes.map(({value}) => itemKeyOf('episodes', value.slug)),
      ...meetups.map(({value}) => itemKeyOf('meetups', value.slug)),
      ...voices.map(({value}) => itemKeyOf('voices', value.slug)),
    ]
    places.set(snapshot, (place = new Map(keys.map((key, index) => [key, index]))))
  }
  return place
}
