// A collection's items in list order and by slug, as a snapshot serves them. A per-document build
// changes one or two entries of a list of 70k, so the next lists are made from the previous ones:
// entries that are the same objects keep their parts by position, and only the changed slugs go
// into the index (slug-index.ts), instead of every item being looked up and indexed again.
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import type {SortKey} from '../../catalog/v1/order.ts'
import type {Representation} from './representation.ts'
import {SlugIndex} from './slug-index.ts'

/** What a snapshot makes from one entry, memoised by the entry's identity. */
export interface EntryParts {
  representation: Representation<Buffer>
  /** The item's JSON: a view into its representation's body, so the bytes are held once. */
  json: Buffer
  key: SortKey
}

export interface CollectionLists {
  entries: readonly CatalogEntry<unknown>[]
  /** Each item's JSON, in list order. */
  items: Buffer[]
  keys: SortKey[]
  representations: Representation<Buffer>[]
  bySlug: SlugIndex
  /** Set when these lists were made from others by an edit: theirs, and the slugs it removed or added. */
  edit?: {from: ListsId; slugs: readonly string[]}
  /** Names these lists without holding them, so an edit's record keeps no retired snapshot alive. */
  id: ListsId
}

/** A number per set of lists made (2^53 of them before it repeats). */
type ListsId = number
let listsMade = 0

/** How far ahead the walk looks for an entry the previous list still holds (an insertion or a removal shifts the rest by one). */
const LOOKAHEAD = 16
/** Past this many changed entries, the lists are made whole: a full re-read replaces every entry. */
const MAX_WALKED_CHANGES = 64

/** Lists made whole, every entry's parts looked up (or made). */
export function listsOf<E extends CatalogEntry<unknown>>(
  entries: readonly E[],
  partOf: (entry: E) => EntryParts,
): CollectionLists {
  const parts = entries.map(partOf)
  return {
    entries,
    items: parts.map((part) => part.json),
    keys: parts.map((part) => part.key),
    representations: parts.map((part) => part.representation),
    bySlug: SlugIndex.of(parts.map((part) => [part.key[1], part.representation] as const)),
    id: ++listsMade,
  }
}

/**
 * The lists for `entries` made from `previous`, walking both in order: an entry that is the same
 * object keeps its parts; one the previous list lacks is added, one `entries` lack is removed. Any
 * alignment is correct (an entry taken for removed and added is served as added, since slugs are
 * unique in both lists); the lookahead only keeps an insertion from looking like a change of every
 * entry after it. Undefined when more than a few entries changed.
 */
export function listsAfterEdit<E extends CatalogEntry<unknown>>(
  previous: CollectionLists,
  entries: readonly E[],
  partOf: (entry: E) => EntryParts,
): CollectionLists | undefined {
  const before = previous.entries
  const items: Buffer[] = []
  const keys: SortKey[] = []
  const representations: Representation<Buffer>[] = []
  const removed: string[] = []
  const added: (readonly [string, Representation<Buffer>])[] = []
  const keep = (at: number) => {
    const [key, json, representation] = [previous.keys[at], previous.items[at], previous.representations[at]]
    if (!key || !json || !representation) throw new Error('the previous lists are not of one length')
    keys.push(key)
    items.push(json)
    representations.push(representation)
  }
  const add = (entry: E) => {
    const part = partOf(entry)
    keys.push(part.key)
    items.push(part.json)
    representations.push(part.representation)
    added.push([part.key[1], part.representation])
  }
  const drop = (at: number) => {
    const slug = previous.keys[at]?.[1]
    if (slug !== undefined) removed.push(slug)
  }
  /** The least distance ahead, up to LOOKAHEAD, at which `matches` holds. */
  const ahead = (matches: (distance: number) => boolean) => {
    for (let distance = 1; distance <= LOOKAHEAD; distance++) if (matches(distance)) return distance
    return undefined
  }
  let i = 0
  let j = 0
  while (i < entries.length) {
    if (removed.length + added.length > MAX_WALKED_CHANGES) return undefined
    const entry = entries[i]
    if (!entry) break
    if (j < before.length && entry === before[j]) {
      keep(j++)
      i++
      continue
    }
    const inserted = j < before.length ? ahead((distance) => entries[i + distance] === before[j]) : undefined
    const deleted = ahead((distance) => before[j + distance] === entry)
    if (deleted !== undefined && (inserted === undefined || deleted <= inserted)) {
      for (let count = 0; count < deleted; count++) drop(j++)
    } else if (inserted !== undefined) {
      for (const next of entries.slice(i, i + inserted)) add(next)
      i += inserted
    } else {
      // Changed in place, or moved further than the lookahead: added here, removed where it was.
      add(entry)
      i++
      if (j < before.length) drop(j++)
    }
  }
  while (j < before.length) drop(j++)
  if (removed.length + added.length > MAX_WALKED_CHANGES) return undefined
  const bySlug = previous.bySlug.with(removed, added)
  const edit = {from: previous.id, slugs: [...new Set([...removed, ...added.map(([slug]) => slug)])]}
  return bySlug && {entries, items, keys, representations, bySlug, edit, id: ++listsMade}
}
