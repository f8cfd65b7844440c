import type {SearchResult} from 'minisearch'
import type {CollectionName} from '../api/v1/links.ts'
import type {RankedHit} from '../api/v1/search.ts'
import {itemKeyOf} from './change-history.ts'
import {termsOf} from './hebrew-analysis.ts'
import {words} from './hebrew-text.ts'
import type {SearchDocument} from './search-documents.ts'
import type {Searched} from './search-index.ts'

/** A hit as the search ranks it; the API gives it its shape (api/v1/search.ts). */
export type SearchHit = RankedHit

const SNIPPET_WORDS_BEFORE = 6
const SNIPPET_WORDS_AFTER = 12

/** The words around the first word of `text` whose terms matched, as written in the catalog. */
function snippetOf(document: SearchDocument, result: SearchResult): string {
  const matched = new Set(result.terms)
  for (const field of ['body', 'takeaways', 'title', 'tags', 'people'] as const) {
    const text = document[field]
    const written = text.split(/\s+/).filter(Boolean)
    const at = written.findIndex((token) =>
      words(token).some((word) => termsOf(word).some((term) => matched.has(term))),
    )
    if (at === -1) continue
    const start = Math.max(0, at - SNIPPET_WORDS_BEFORE)
    const end = Math.min(written.length, at + SNIPPET_WORDS_AFTER)
    return `${start > 0 ? '… ' : ''}${written.slice(start, end).join(' ')}${end < written.length ? ' …' : ''}`
  }
  return document.title
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
  return results.flatMap((result) => {
    const document = documentOf(result)
    if (!document) return []
    const {collection, slug, title, url, api_url} = document
    return [
      {
        collection,
        slug,
        title,
        url,
        api_url,
        score: Math.round(result.score * 100) / 100,
        snippet: snippetOf(document, result),
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
