import type {Catalog} from '../../catalog/v1/catalog.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import {itemKeyOf} from './change-history.ts'
import {DEVELOPER_TERMS, MIN_SKELETON, skeleton, surfaceForms, termsOf} from './hebrew-analysis.ts'
import {words} from './hebrew-text.ts'
import {cuesOf} from '../../catalog/v1/transcript.ts'
import type {TermQuery} from './transcript-index.ts'

/** One item as it is searched: its identity and its text by field. */
export interface SearchDocument {
  /** `episodes/ep-1-why-we-started`: the change history's key for the item. */
  id: string
  collection: CollectionName
  slug: string
  title: string
  url: string
  api_url: string
  tags: string
  people: string
  takeaways: string
  body: string
  /**
   * An episode's transcript as the catalog holds it (catalog/v1/transcript.ts), by reference: its text is
   * read when the item is indexed (transcript-index.ts) and when a hit needs its cue, never kept beside the index.
   */
  transcript: Uint8Array | undefined
  /** The slugs of the voices whose names `people` holds (not searched). */
  voices: readonly string[]
}

/** The fields MiniSearch indexes, and their boosts; a transcript (boost 1) has its own index. */
export const SEARCH_FIELDS = ['title', 'tags', 'people', 'takeaways', 'body'] as const
export const FIELD_BOOST = {title: 5, tags: 4, people: 3, takeaways: 2, body: 1}

/**
 * How a query term also matches: one typo in words of five letters or more, two from ten; prefixes
 * of four letters or more; each weighted below a word as written.
 */
export const MATCHING = {
  fuzzy: (term: string) => (term.length >= 5 ? 0.2 : false),
  prefix: (term: string) => term.length >= 4,
  weights: {fuzzy: 0.3, prefix: 0.5},
  // MiniSearch's default bound on the typos a fuzzy term allows.
  maxTypos: 6,
} as const

/** A query term as the transcript index looks it up, matched as MiniSearch matches the other fields. */
export function termQuery(term: string): TermQuery {
  const fuzzy = MATCHING.fuzzy(term)
  return {
    term,
    prefix: MATCHING.prefix(term),
    typos: fuzzy === false ? 0 : Math.min(MATCHING.maxTypos, Math.round(term.length * fuzzy)),
  }
}

/** A transcript's text as it is indexed: its cues' text, read from its bytes. */
export const transcriptText = (transcript: Uint8Array): string =>
  cuesOf(transcript)
    .map((cue) => cue.text)
    .join('\n')

/**
 * The catalog's items as search documents: episodes, then meetups, then voices, in list order;
 * only those `wanted` names when it is given.
 */
export function searchDocuments(
  catalog: Catalog,
  wanted: (collection: CollectionName, slug: string) => boolean = () => true,
): SearchDocument[] {
  const {episodes, meetups, voices} = catalog
  const names = new Map(voices.map(({value}) => [value.slug, value.name]))
  const namesOf = (people: readonly {slug: string}[]) => people.map((person) => names.get(person.slug) ?? '').join(' ')
  const documents: SearchDocument[] = []
  const add = (document: Omit<SearchDocument, 'id'>) =>
    documents.push({id: itemKeyOf(document.collection, document.slug), ...document})
  for (const {value, transcript} of episodes) {
    if (!wanted('episodes', value.slug)) continue
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
      transcript,
      voices: value.guests.map((guest) => guest.slug),
    })
  }
  for (const {value} of meetups) {
    if (!wanted('meetups', value.slug)) continue
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
      transcript: undefined,
      voices: value.speakers.map((speaker) => speaker.slug),
    })
  }
  for (const {value} of voices) {
    if (!wanted('voices', value.slug)) continue
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
      transcript: undefined,
      voices: [],
    })
  }
  return documents
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
