import type {Catalog, CatalogEntry} from '../api/v1/catalog.ts'
import {decodeCursor, encodeCursor} from '../api/v1/cursor.ts'
import type {Bulk, Pagination} from '../api/v1/contract.ts'
import type {CollectionName, Links} from '../api/v1/links.ts'
import {episodeOrder, meetupOrder, voiceOrder, type ListOrder, type SortKey} from '../api/v1/order.ts'
import {buildServiceIndex, type ServiceIndexSettings} from '../api/v1/service-index.ts'
import {represent, type Representation} from './representation.ts'

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 500
const MAX_CACHED_PAGES = 1000

export interface PageRequest {
  limit: number
  cursor: string | null
}

export type PageResult = {ok: true; representation: Representation} | {ok: false; reason: string}

/**
 * Everything a client can read, built once per content version. Immutable: a rebuild makes a new
 * snapshot and swaps it in whole, so a request sees the old one or the new one, never a mix.
 */
export interface Snapshot {
  /** ETag of the bulk document: changes whenever any served content changes. */
  readonly version: string
  readonly builtAt: Date
  readonly catalog: Catalog
  readonly counts: Readonly<Record<CollectionName, number>>
  /** Paths relative to `/api/v1/`, such as `episodes.json` or `voices/noa-levi.json`. */
  readonly paths: readonly string[]
  representation(path: string): Representation | undefined
  /** A list page for a `limit` and `cursor`; the default page is pre-built, others are built once and kept. */
  listPage(collection: CollectionName, request: PageRequest): PageResult
}

export interface SnapshotSettings {
  links: Links
  index: ServiceIndexSettings
}

interface SerializedList {
  name: CollectionName
  itemJson: string[]
  keys: SortKey[]
  compare: (a: SortKey, b: SortKey) => number
}

export function buildSnapshot(catalog: Catalog, settings: SnapshotSettings, previous: Snapshot | undefined, now: Date): Snapshot {
  const {links} = settings
  const representations = new Map<string, Representation>()
  const add = (path: string, text: string, contentUpdatedAt: string) => {
    const earlier = previous?.representation(path)
    const representation = represent(text, (etag) =>
      earlier?.etag === etag ? earlier.lastModified : previous ? now : new Date(contentUpdatedAt),
    )
    representations.set(path, representation)
    return representation
  }

  const lists = {
    episodes: serializeList('episodes', catalog.episodes, episodeOrder),
    meetups: serializeList('meetups', catalog.meetups, meetupOrder),
    voices: serializeList('voices', catalog.voices, voiceOrder),
  }
  const allEntries = [...catalog.episodes, ...catalog.meetups, ...catalog.voices]
  const catalogUpdatedAt = latest(allEntries) ?? now.toISOString()

  for (const list of Object.values(lists)) {
    const entries = catalog[list.name]
    add(`${list.name}.json`, pageText(list, links, DEFAULT_PAGE_LIMIT, 0), latest(entries) ?? catalogUpdatedAt)
    entries.forEach((entry, index) => add(`${list.name}/${entry.value.slug}.json`, `{"data":${list.itemJson[index]}}`, entry.updatedAt))
  }
  add('index.json', JSON.stringify({data: buildServiceIndex(links, settings.index)}), catalogUpdatedAt)
  const counts = {episodes: catalog.episodes.length, meetups: catalog.meetups.length, voices: catalog.voices.length}
  const bulk = add('all.json', bulkText(lists, counts), catalogUpdatedAt)

  const pages = new Map<string, Representation>()
  const listPage = (collection: CollectionName, request: PageRequest): PageResult => {
    const list = lists[collection]
    if (request.cursor === null && request.limit === DEFAULT_PAGE_LIMIT) {
      const page = representations.get(`${collection}.json`)
      if (page) return {ok: true, representation: page}
    }
    const cacheKey = `${collection} ${request.limit} ${request.cursor ?? ''}`
    const cached = pages.get(cacheKey)
    if (cached) return {ok: true, representation: cached}
    let start = 0
    if (request.cursor !== null) {
      const decoded = decodeCursor(request.cursor)
      if (!decoded.ok) return decoded
      start = firstIndexAfter(list, decoded.key)
    }
    // Any page may change whenever any content changes, so pages share the bulk document's date.
    const page = represent(pageText(list, links, request.limit, start), () => bulk.lastModified)
    if (pages.size >= MAX_CACHED_PAGES) pages.delete(pages.keys().next().value ?? '')
    pages.set(cacheKey, page)
    return {ok: true, representation: page}
  }

  return Object.freeze({
    version: bulk.etag,
    builtAt: now,
    catalog,
    counts: Object.freeze(counts),
    paths: Object.freeze([...representations.keys()]),
    representation: (path: string) => representations.get(path),
    listPage,
  })
}

function serializeList<Item>(name: CollectionName, entries: CatalogEntry<Item>[], order: ListOrder<Item>): SerializedList {
  return {
    name,
    itemJson: entries.map((entry) => JSON.stringify(entry.value)),
    keys: entries.map((entry) => order.key(entry.value)),
    compare: order.compare,
  }
}

/** Keyset pagination: the first item that sorts after the cursor's key (binary search over the sorted keys). */
function firstIndexAfter(list: SerializedList, cursorKey: SortKey): number {
  let low = 0
  let high = list.keys.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const key = list.keys[middle]
    if (key && list.compare(key, cursorKey) <= 0) low = middle + 1
    else high = middle
  }
  return low
}

function pageText(list: SerializedList, links: Links, limit: number, start: number): string {
  const total = list.itemJson.length
  const end = Math.min(start + limit, total)
  const lastKey = list.keys[end - 1]
  const nextCursor = end < total && lastKey ? encodeCursor(lastKey) : null
  const query = new URLSearchParams({...(limit === DEFAULT_PAGE_LIMIT ? {} : {limit: String(limit)}), cursor: nextCursor ?? ''})
  const pagination: Pagination = {
    limit,
    count: end - start,
    total,
    has_more: nextCursor !== null,
    next_cursor: nextCursor,
    next: nextCursor === null ? null : `${links.apiPath(`${list.name}.json`)}?${query}`,
  }
  return `{"data":[${list.itemJson.slice(start, end).join(',')}],"pagination":${JSON.stringify(pagination)}}`
}

function bulkText(lists: Record<CollectionName, SerializedList>, counts: Bulk['counts']): string {
  const array = (list: SerializedList) => `[${list.itemJson.join(',')}]`
  return `{"data":{"episodes":${array(lists.episodes)},"meetups":${array(lists.meetups)},"voices":${array(lists.voices)}},"counts":${JSON.stringify(counts)}}`
}

function latest(entries: readonly CatalogEntry<unknown>[]): string | undefined {
  let newest: string | undefined
  for (const entry of entries) if (newest === undefined || Date.parse(entry.updatedAt) > Date.parse(newest)) newest = entry.updatedAt
  return newest
}
