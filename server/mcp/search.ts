import type {Snapshot} from '../snapshot/snapshot.ts'
import type {CollectionName} from '../api/v1/links.ts'
import {stems, words} from './hebrew-text.ts'

export interface SearchHit {
  collection: CollectionName
  slug: string
  title: string
  url: string
  api_url: string
  score: number
}

interface IndexedItem {
  collection: CollectionName
  slug: string
  title: string
  url: string
  api_url: string
}

/** Where a word appears in an item and how much that counts. */
interface Posting {
  item: number
  weight: number
}

interface SearchIndex {
  items: IndexedItem[]
  /** Every stem of every word -> the items it appears in, with its best field weight. */
  postings: Map<string, Posting[]>
}

const WEIGHTS = {title: 5, name: 5, tags: 4, takeaways: 2, body: 1} as const

// One index per snapshot, built on first search: it answers for exactly the content served.
const indexes = new WeakMap<Snapshot, SearchIndex>()

function buildIndex(snapshot: Snapshot): SearchIndex {
  const items: IndexedItem[] = []
  const postings = new Map<string, Posting[]>()
  const add = (item: IndexedItem, fields: [string, number][]) => {
    const index = items.push(item) - 1
    const best = new Map<string, number>()
    for (const [text, weight] of fields) {
      for (const word of words(text)) {
        for (const [position, stem] of stems(word).entries()) {
          // A stem reached by dropping a prefix counts a little less than the word itself.
          const score = position === 0 ? weight : weight * 0.8
          best.set(stem, Math.max(best.get(stem) ?? 0, score))
        }
      }
    }
    for (const [stem, weight] of best) {
      let list = postings.get(stem)
      if (!list) postings.set(stem, (list = []))
      list.push({item: index, weight})
    }
  }
  const {episodes, meetups, voices} = snapshot.catalog
  for (const {value} of episodes) {
    add({collection: 'episodes', slug: value.slug, title: value.title, url: value.url, api_url: value.api_url}, [
      [value.title, WEIGHTS.title],
      [value.tags.join(' '), WEIGHTS.tags],
      [value.takeaways.join(' '), WEIGHTS.takeaways],
      [value.description, WEIGHTS.body],
      [value.faq.map((pair) => `${pair.question} ${pair.answer}`).join(' '), WEIGHTS.body],
    ])
  }
  for (const {value} of meetups) {
    add({collection: 'meetups', slug: value.slug, title: value.title, url: value.url, api_url: value.api_url}, [
      [value.title, WEIGHTS.title],
      [value.tags.join(' '), WEIGHTS.tags],
      [value.abstract ?? '', WEIGHTS.body],
    ])
  }
  for (const {value} of voices) {
    add({collection: 'voices', slug: value.slug, title: value.name, url: value.url, api_url: value.api_url}, [
      [value.name, WEIGHTS.name],
      [value.tech_stack.join(' '), WEIGHTS.tags],
      [value.role, WEIGHTS.body],
      [value.bio, WEIGHTS.body],
    ])
  }
  return {items, postings}
}

/**
 * Ranks catalog items for a free-text query (Hebrew or English). Each query word scores the best
 * weight among its stems in an item; items matching more words rank first, then by score, then
 * newest-first list order is kept by the stable sort.
 */
export function searchCatalog(snapshot: Snapshot, query: string, collections: readonly CollectionName[]): SearchHit[] {
  let index = indexes.get(snapshot)
  if (!index) indexes.set(snapshot, (index = buildIndex(snapshot)))
  const allowed = new Set(collections)
  const queryWords = [...new Set(words(query))]
  const scores = new Map<number, {matched: number; score: number}>()
  for (const word of queryWords) {
    const best = new Map<number, number>()
    for (const stem of stems(word)) {
      for (const posting of index.postings.get(stem) ?? []) best.set(posting.item, Math.max(best.get(posting.item) ?? 0, posting.weight))
    }
    for (const [item, weight] of best) {
      const entry = scores.get(item) ?? {matched: 0, score: 0}
      scores.set(item, {matched: entry.matched + 1, score: entry.score + weight})
    }
  }
  return [...scores]
    .sort(([a, x], [b, y]) => y.matched - x.matched || y.score - x.score || a - b)
    .flatMap(([item, {score}]) => {
      const hit = index.items[item]
      return hit && allowed.has(hit.collection) ? [{...hit, score: Math.round(score * 10) / 10}] : []
    })
}
