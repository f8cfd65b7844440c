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
  items: Buffer[]
  keys: SortKey[]
  compare: (a: SortKey, b: SortKey) => number
}

interface EntryBytes {
  /** The item's JSON, shared by its list pages, the bulk document and its own representation. */
  json: Buffer
  representation: Representation
}

// Entries are immutable and a patched catalog keeps the unchanged ones, so bytes and ETags are
// memoised by entry identity: a one-document update serialises and hashes one item, not all.
const entryBytes = new WeakMap<CatalogEntry<unknown>, EntryBytes>()

const bytes = (text: string) => Buffer.from(text, 'utf8')
const COMMA = bytes(',')
const ITEM_OPEN = bytes('{"data":')
const CLOSE_OBJECT = bytes('}')

export function buildSnapshot(catalog: Catalog, settings: SnapshotSettings, previous: Snapshot | undefined, now: Date): Snapshot {
  const {links} = settings
  const representations = new Map<string, Representation>()
  const datedBy = (path: string, contentUpdatedAt: string) => (etag: string) => {
    const earlier = previous?.representation(path)
    return earlier?.etag === etag ? earlier.lastModified : previous ? now : new Date(contentUpdatedAt)
  }
  const add = (path: string, body: Buffer | string, contentUpdatedAt: string) => {
    const representation = represent(body, datedBy(path, contentUpdatedAt))
    representations.set(path, representation)
    return representation
  }
  const serializeList = <Item>(name: CollectionName, entries: readonly CatalogEntry<Item>[], order: ListOrder<Item>): SerializedList => {
    const items = entries.map((entry) => {
      const path = `${name}/${order.key(entry.value)[1]}.json`
      let memo = entryBytes.get(entry)
      if (!memo) {
        const json = bytes(JSON.stringify(entry.value))
        memo = {json, representation: represent(Buffer.concat([ITEM_OPEN, json, CLOSE_OBJECT]), datedBy(path, entry.updatedAt))}
        entryBytes.set(entry, memo)
      }
      representations.set(path, memo.representation)
      return memo.json
    })
    return {name, items, keys: entries.map((entry) => order.key(entry.value)), compare: order.compare}
  }

  const lists = {
    episodes: serializeList('episodes', catalog.episodes, episodeOrder),
    meetups: serializeList('meetups', catalog.meetups, meetupOrder),
    voices: serializeList('voices', catalog.voices, voiceOrder),
  }
  const catalogUpdatedAt = latest([catalog.episodes, catalog.meetups, catalog.voices].flat()) ?? now.toISOString()
  for (const list of Object.values(lists)) {
    add(`${list.name}.json`, pageBody(list, links, DEFAULT_PAGE_LIMIT, 0), latest(catalog[list.name]) ?? catalogUpdatedAt)
  }
  add('index.json', JSON.stringify({data: buildServiceIndex(links, settings.index)}), catalogUpdatedAt)
  const counts = {episodes: catalog.episodes.length, meetups: catalog.meetups.length, voices: catalog.voices.length}
  const bulk = add('all.json', bulkBody(lists, counts), catalogUpdatedAt)

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
    const page = represent(pageBody(list, links, request.limit, start), () => bulk.lastModified)
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

/** `[a,b,c]` as bytes, without copying the items into an intermediate string. */
function jsonArray(items: readonly Buffer[]): Buffer[] {
  const parts: Buffer[] = [bytes('[')]
  items.forEach((item, index) => {
    if (index > 0) parts.push(COMMA)
    parts.push(item)
  })
  parts.push(bytes(']'))
  return parts
}

function pageBody(list: SerializedList, links: Links, limit: number, start: number): Buffer {
  const total = list.items.length
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
  return Buffer.concat([bytes('{"data":'), ...jsonArray(list.items.slice(start, end)), bytes(`,"pagination":${JSON.stringify(pagination)}}`)])
}

function bulkBody(lists: Record<CollectionName, SerializedList>, counts: Bulk['counts']): Buffer {
  return Buffer.concat([
    bytes('{"data":{"episodes":'),
    ...jsonArray(lists.episodes.items),
    bytes(',"meetups":'),
    ...jsonArray(lists.meetups.items),
    bytes(',"voices":'),
    ...jsonArray(lists.voices.items),
    bytes(`},"counts":${JSON.stringify(counts)}}`),
  ])
}

function latest(entries: readonly CatalogEntry<unknown>[]): string | undefined {
  let newest: string | undefined
  for (const entry of entries) if (newest === undefined || Date.parse(entry.updatedAt) > Date.parse(newest)) newest = entry.updatedAt
  return newest
}
