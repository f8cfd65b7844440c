import {DEFAULT_PAGE_LIMIT, type Pagination} from '../../catalog/v1/contract.ts'
import {encodeCursor} from '../api/v1/cursor.ts'
import type {CollectionName, Links} from '../../catalog/v1/links.ts'
import type {SortKey} from '../../catalog/v1/order.ts'
import {ChunkedBody} from './chunked-body.ts'
import type {Representation} from './representation.ts'

// The bytes of items, list pages and the bulk document, joined from the items' own bytes.

const bytes = (text: string) => Buffer.from(text, 'utf8')
const COMMA = bytes(',')
const ITEM_OPEN = '{"data":'
const ITEM_CLOSE = '}'

/** What a page is cut from: a collection's items' JSON in list order, and their sort keys. */
interface ListState {
  name: CollectionName
  items: readonly Buffer[]
  keys: readonly SortKey[]
}

/** An item's served body: `{"data":…}`. */
export const itemBody = (value: unknown) => bytes(`${ITEM_OPEN}${JSON.stringify(value)}${ITEM_CLOSE}`)

/** An item's JSON inside its `{"data":…}` body, without a copy. */
export const itemJson = (representation: Representation<Buffer>) =>
  representation.body.subarray(ITEM_OPEN.length, representation.body.length - ITEM_CLOSE.length)

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

export function pageBody(state: ListState, links: Links, limit: number, start: number): Buffer {
  const total = state.items.length
  const end = Math.min(start + limit, total)
  const lastKey = state.keys[end - 1]
  const nextCursor = end < total && lastKey ? encodeCursor(lastKey) : null
  const query = new URLSearchParams({
    ...(limit === DEFAULT_PAGE_LIMIT ? {} : {limit: String(limit)}),
    cursor: nextCursor ?? '',
  })
  const pagination: Pagination = {
    limit,
    count: end - start,
    total,
    has_more: nextCursor !== null,
    next_cursor: nextCursor,
    next: nextCursor === null ? null : `${links.apiPath(`${state.name}.json`)}?${query.toString()}`,
  }
  return Buffer.concat([
    bytes('{"data":'),
    ...jsonArray(state.items.slice(start, end)),
    bytes(`,"pagination":${JSON.stringify(pagination)}}`),
  ])
}

export function bulkBody(
  states: Record<CollectionName, Pick<ListState, 'items'>>,
  counts: Record<CollectionName, number>,
): ChunkedBody {
  return new ChunkedBody([
    bytes('{"data":{"episodes":'),
    ...jsonArray(states.episodes.items),
    bytes(',"meetups":'),
    ...jsonArray(states.meetups.items),
    bytes(',"voices":'),
    ...jsonArray(states.voices.items),
    bytes(`},"counts":${JSON.stringify(counts)}}`),
  ])
}
