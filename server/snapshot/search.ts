import MiniSearch, {type SearchResult} from 'minisearch'
import type {Catalog} from '../api/v1/catalog.ts'
import type {CollectionName} from '../api/v1/links.ts'
import {DEVELOPER_TERMS, MIN_SKELETON, skeleton, surfaceForms, termsOf} from './hebrew-analysis.ts'
import type {RankedHit} from '../api/v1/search.ts'
import {words} from './hebrew-text.ts'

/** A hit as the search ranks it; the API gives it its shape (api/v1/search.ts). */
export type SearchHit = RankedHit

/** One item as it is searched: its identity and its text by field. */
export interface SearchDocument {
  id: number
  collection: CollectionName
  slug: string
  title: string
  url: string
  api_url: string
  tags: string
  people: string
  takeaways: string
  body: string
}

export const SEARCH_FIELDS = ['title', 'tags', 'people', 'takeaways', 'body'] as const
export const FIELD_BOOST = {title: 5, tags: 4, people: 3, takeaways: 2, body: 1}
const SNIPPET_WORDS_BEFORE = 6
const SNIPPET_WORDS_AFTER = 12

interface CatalogIndex {
  search: MiniSearch<SearchDocument>
  documents: SearchDocument[]
}

/**
 * What is searched: a snapshot (this module does not import snapshot.ts, which builds the HTTP
 * answers from it). MCP's search_catalog and `/api/v1/search.json` pass the same snapshot, so they
 * share its index.
 */
interface Searched {
  readonly catalog: Catalog
}

// One index per snapshot, built on first search: it answers for exactly the content served.
const indexes = new WeakMap<Searched, CatalogIndex>()

/** The catalog's items as search documents: episodes, then meetups, then voices, in list order. */
export function searchDocuments(snapshot: Searched): SearchDocument[] {
  const {episodes, meetups, voices} = snapshot.catalog
  const names = new Map(voices.map(({value}) => [value.slug, value.name]))
  const namesOf = (people: readonly {slug: string}[]) => people.map((person) => names.get(person.slug) ?? '').join(' ')
  const documents: SearchDocument[] = []
  const add = (document: Omit<SearchDocument, 'id'>) => documents.push({id: documents.length, ...document})
  for (const {value} of episodes) {
    const faq = value.faq.map((pair) => `${pair.question} ${pair.answer}`).join(' ')
    add({
      collection: 'episodes',
      slug: value.slug,
      title: value.title,
      url: value.url,
      api_url: value.api_url,
      tags: value.tags.join(' '),
      people: namesOf(value.guests),
      takeaways: value.takeaways.join(' '),
      body: `${value.description} ${faq}`,
    })
  }
  for (const {value} of meetups) {
    add({
      collection: 'meetups',
      slug: value.slug,
      title: value.title,
      url: value.url,
      api_url: value.api_url,
      tags: value.tags.join(' '),
      people: namesOf(value.speakers),
      takeaways: '',
      body: value.abstract ?? '',
    })
  }
  for (const {value} of voices) {
    add({
      collection: 'voices',
      slug: value.slug,
      title: value.name,
      url: value.url,
      api_url: value.api_url,
      tags: value.tech_stack.join(' '),
      people: value.name,
      takeaways: '',
      body: `${value.role} ${value.bio}`,
    })
  }
  return documents
}

function buildIndex(snapshot: Searched): CatalogIndex {
  const documents = searchDocuments(snapshot)
  const search = new MiniSearch<SearchDocument>({
    fields: [...SEARCH_FIELDS],
    tokenize: words,
    processTerm: termsOf,
    searchOptions: {
      boost: FIELD_BOOST,
      // One typo in words of five letters or more, two from ten; prefixes of four letters or more.
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      prefix: (term) => term.length >= 4,
      weights: {fuzzy: 0.3, prefix: 0.5},
      processTerm: queryAnalyser(documents.map((document) => document.tags)),
    },
  })
  search.addAll(documents)
  return {search, documents}
}

/**
 * What a query word is searched as: its own terms, and for a Hebrew loanword the English word of
 * the catalog's tags and tech stacks (`englishTexts`) or of DEVELOPER_TERMS with the same consonants
 * (ריאקט -> react), with the Hebrew words the catalog uses for it (דיפלוי -> deploy, פריסה).
 */
export function queryAnalyser(englishTexts: readonly string[]): (word: string) => string[] {
  const loanwords = new Map<string, string[]>()
  for (const english of new Set([...englishTexts.flatMap(words), ...Object.keys(DEVELOPER_TERMS)])) {
    const key = skeleton(english)
    if (key.length >= MIN_SKELETON && /^[a-z]/.test(english))
      loanwords.set(key, [...(loanwords.get(key) ?? []), english])
  }
  return (word) => queryTerms(word, loanwords)
}

function queryTerms(word: string, loanwords: ReadonlyMap<string, string[]>): string[] {
  const terms = new Set(termsOf(word))
  for (const form of surfaceForms(word)) {
    const key = skeleton(form)
    if (key.length < MIN_SKELETON || !/^[\u05D0-\u05EA]/.test(form)) continue
    for (const english of loanwords.get(key) ?? []) {
      for (const term of termsOf(english)) terms.add(term)
      for (const hebrew of (DEVELOPER_TERMS[english] ?? []).flatMap(words))
        for (const term of termsOf(hebrew)) terms.add(term)
    }
  }
  return [...terms]
}

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
 * BM25+ with field boosts, typo and prefix tolerance) and one order, highest score first.
 */
export function searchCatalog(snapshot: Searched, query: string, collections: readonly CollectionName[]): SearchHit[] {
  let index = indexes.get(snapshot)
  if (!index) indexes.set(snapshot, (index = buildIndex(snapshot)))
  const {documents} = index
  const allowed = new Set(collections)
  const isAllowed = (document: SearchDocument | undefined) => document !== undefined && allowed.has(document.collection)
  const documentOf = (result: SearchResult) => (typeof result.id === 'number' ? documents[result.id] : undefined)
  return index.search.search(query, {filter: (result) => isAllowed(documentOf(result))}).flatMap((result) => {
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
