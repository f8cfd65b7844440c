import type {LRUCache} from 'lru-cache'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {searchResults, type SearchRequest} from '../api/v1/search.ts'
import {ownedBytes} from './owned-bytes.ts'
import {represent, type Representation} from './representation.ts'
import {searchCatalog} from './search.ts'
import type {IndexBeingBuilt, Searched} from './search-index.ts'
import {SEARCH_KEY, type SurrogateKeying} from './surrogate-keys.ts'

/** A search's page, or (while a large catalog's index is being built) when to ask again. */
export type SearchPageAnswer = {ready: true; representation: Representation<Buffer>} | IndexBeingBuilt

/** What a search answer is made from: the snapshot searched and where its answers are kept. */
export interface SearchPageSource {
  /** The snapshot itself: MCP's search_catalog searches the same object, so both use one index. */
  searched: Searched
  version: string
  contentLastModified: Date
  /** The list pages' cache, shared by every snapshot and bounded in bytes (demand-caches.ts). */
  pages: LRUCache<string, Representation<Buffer>>
  keying: SurrogateKeying | undefined
}

/**
 * `/api/v1/search.json`'s answer to `request`: the same ranking as MCP's search_catalog, made on
 * the first request for this query and limit and kept beside the list pages, so any number of
 * distinct queries holds no more than the page cache's bound. Under the `search` surrogate key,
 * which every publish that changes the content purges.
 */
export function searchPage(source: SearchPageSource, request: SearchRequest): SearchPageAnswer {
  const cacheKey = `${source.version} search ${request.limit} ${request.query}`
  const cached = source.pages.get(cacheKey)
  if (cached) return {ready: true, representation: cached}
  const answer = searchCatalog(source.searched, request.query, COLLECTION_NAMES, request.limit)
  if (!answer.ready) return answer
  const {hits, total} = answer
  // Any answer may change whenever any content changes, so answers share the content's date.
  const page = represent(
    ownedBytes(Buffer.from(JSON.stringify(searchResults(hits, total, request.limit)), 'utf8')),
    () => source.contentLastModified,
    {headers: source.keying?.headersFor(SEARCH_KEY, SEARCH_KEY)},
  )
  source.pages.set(cacheKey, page)
  return {ready: true, representation: page}
}
