import type {LRUCache} from 'lru-cache'
import {encodeChangesCursor, unknownTokenDetail, type ChangesRequest} from '../api/v1/changes.ts'
import {COLLECTION_NAMES, type CollectionName, type Links} from '../../catalog/v1/links.ts'
import {itemKeyOf, type ChangeHistory} from './change-history.ts'
import {ownedBytes} from './owned-bytes.ts'
import {represent, type Representation} from './representation.ts'
import {BULK_KEY, type SurrogateKeying} from './surrogate-keys.ts'

const TYPE_OF: Record<CollectionName, string> = {episodes: 'episode', meetups: 'meetup', voices: 'voice'}
const ITEM_OPEN = '{"data":'

/** What a change-feed page is made from: one snapshot, its history, and where answers are kept. */
export interface ChangesPageSource {
  version: string
  contentLastModified: Date
  history: ChangeHistory
  item: (collection: CollectionName, slug: string) => Representation<Buffer> | undefined
  /** Every served item's slug, per collection (the initial sync's keys). */
  slugs: (collection: CollectionName) => Iterable<string>
  links: Links
  pages: LRUCache<string, Representation<Buffer>>
  keying: SurrogateKeying | undefined
  /** The sorted keys of a `since` (null: every item), memoised for this snapshot's pages. */
  keysMemo: Map<string, readonly ChangeKey[]>
}

export type ChangesPageResult = {ok: true; representation: Representation<Buffer>} | {ok: false; detail: string}

interface ChangeKey {
  key: string
  collection: CollectionName
  slug: string
}

/** How many distinct `since` tokens a snapshot keeps the sorted keys of. */
const KEYS_REMEMBERED = 16

/**
 * `/api/v1/changes.json`: the items whose served bytes differ between the version `since` names and
 * this snapshot, each once in its state now (or `deleted`), ordered by type and slug and paged by
 * keyset cursor. Without `since`, every item (an initial sync). Every page's `next_token` is the
 * version its first page was answered at, so a change made while a client pages is sent again
 * rather than missed. Kept beside the list pages, under the bulk document's surrogate key, which
 * every new version purges.
 */
export function changesPage(source: ChangesPageSource, request: ChangesRequest): ChangesPageResult {
  const keys = changedKeys(source, request.since)
  if (!keys) return {ok: false, detail: unknownTokenDetail(request.since ?? '')}
  const pinned = request.cursor?.pinned ?? source.version
  // A cursor's version becomes next_token: one this server does not hold (forged, or past the
  // history) would only send the client to a 410 on its next sync, so it gets the 410 now.
  if (pinned !== source.version && !source.history.holds(pinned)) return {ok: false, detail: unknownTokenDetail(pinned)}
  const start = request.cursor ? firstAfter(keys, request.cursor.after) : 0
  const cacheKey = `${source.version} changes ${request.since ?? '-'} ${pinned} ${request.limit} ${start}`
  const cached = source.pages.get(cacheKey)
  if (cached) return {ok: true, representation: cached}

  const end = Math.min(start + request.limit, keys.length)
  const parts: Buffer[] = [Buffer.from('{"data":{"changes":[')]
  for (const [offset, {collection, slug}] of keys.slice(start, end).entries()) {
    const item = source.item(collection, slug)
    const head = `${offset > 0 ? ',' : ''}{"type":"${TYPE_OF[collection]}","slug":${JSON.stringify(slug)},"deleted":${item ? 'false,"item":' : 'true}'}`
    parts.push(Buffer.from(head))
    if (item) parts.push(item.body.subarray(ITEM_OPEN.length, item.body.length - 1), Buffer.from('}'))
  }
  const last = keys[end - 1]
  const nextCursor = end < keys.length && last ? encodeChangesCursor({pinned, after: last.key}) : null
  const query = new URLSearchParams({
    ...(request.since === null ? {} : {since: request.since}),
    limit: String(request.limit),
    cursor: nextCursor ?? '',
  })
  const pagination = {
    limit: request.limit,
    count: end - start,
    total: keys.length,
    has_more: nextCursor !== null,
    next_cursor: nextCursor,
    next: nextCursor === null ? null : `${source.links.apiPath('changes.json')}?${query.toString()}`,
  }
  parts.push(Buffer.from(`],"next_token":"${pinned}"},"pagination":${JSON.stringify(pagination)}}`))
  const page = represent(ownedBytes(Buffer.concat(parts)), () => source.contentLastModified, {
    headers: source.keying?.headersFor(BULK_KEY, BULK_KEY),
  })
  source.pages.set(cacheKey, page)
  return {ok: true, representation: page}
}

/** The keys to answer, sorted; undefined when `since` names a version the history does not hold. */
function changedKeys(source: ChangesPageSource, since: string | null): readonly ChangeKey[] | undefined {
  const memoKey = since ?? ''
  const memo = source.keysMemo.get(memoKey)
  if (memo) return memo
  let keys: ChangeKey[]
  if (since === null) {
    keys = COLLECTION_NAMES.flatMap((collection) =>
      [...source.slugs(collection)].map((slug) => ({key: itemKeyOf(collection, slug), collection, slug})),
    )
  } else {
    const changed = changedSince(source.history, source.item, since)
    if (!changed) return undefined
    keys = changed.map(({collection, slug}) => ({key: itemKeyOf(collection, slug), collection, slug}))
  }
  keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  if (source.keysMemo.size >= KEYS_REMEMBERED) source.keysMemo.clear()
  source.keysMemo.set(memoKey, keys)
  return keys
}

/** The index of the first key after `key` (binary search). */
function firstAfter(keys: readonly ChangeKey[], key: string): number {
  let low = 0
  let high = keys.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((keys[middle]?.key ?? '') <= key) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The items whose served bytes differ between the version `since` names and the one `item` serves,
 * in the history's order, each with whether it is gone; undefined when the history does not hold
 * `since`. An item changed and changed back is not among them.
 */
export function changedSince(
  history: ChangeHistory,
  item: (collection: CollectionName, slug: string) => {readonly etag: string} | undefined,
  since: string,
): {collection: CollectionName; slug: string; deleted: boolean}[] | undefined {
  const changed = history.since(since)
  if (!changed) return undefined
  return [...changed.values()].flatMap(({collection, slug, before}) => {
    const now = item(collection, slug)?.etag ?? null
    return now === before ? [] : [{collection, slug, deleted: now === null}]
  })
}
