import {LRUCache} from 'lru-cache'
import type {EncodedVariant, Representation, VariantStore} from './representation.ts'

/**
 * What is built on a client's first request rather than with the snapshot. Any client can ask for
 * new list pages (every cursor is a new page) and a large catalog cannot afford every item
 * compressed twice up front, so both live in caches shared by every snapshot and bounded in
 * bytes: least recently used entries go first, retired snapshots' entries with them.
 */
export interface DemandCaches {
  /**
   * Documents made on a client's first request: list pages other than the default (by snapshot
   * version, collection, `limit` and the position the page starts at, never the cursor's text),
   * search and change-feed pages, and episodes' chapters and transcripts (by their item's ETag).
   */
  pages: LRUCache<string, Representation<Buffer>>
  /** Compressed variants of items, by ETag and coding: the ETag names the bytes, so snapshots share them. */
  variants: LRUCache<string, EncodedVariant> & VariantStore
}

export interface DemandCacheBounds {
  pageCacheBytes: number
  variantCacheBytes: number
}

// A page is counted at three times its bytes: the most it can hold once compressed, since a
// variant is kept only when it is smaller than the identity bytes (identity, br, gzip).
const PAGE_CODINGS_HELD = 3
// What an entry holds beyond its bytes and its key: a page's Representation (validators, header
// list, two maps) and its buffers' allocations; a variant is one small frozen object. Keys are counted by their length (they are ASCII).
const PAGE_OVERHEAD_BYTES = 2048
const VARIANT_OVERHEAD_BYTES = 256

export function createDemandCaches(bounds: DemandCacheBounds): DemandCaches {
  return {
    pages: new LRUCache<string, Representation<Buffer>>({
      maxSize: bounds.pageCacheBytes,
      sizeCalculation: (page, key) => page.body.length * PAGE_CODINGS_HELD + key.length + PAGE_OVERHEAD_BYTES,
    }),
    variants: new LRUCache<string, EncodedVariant>({
      maxSize: bounds.variantCacheBytes,
      sizeCalculation: (variant, key) => variant.body.length + key.length + VARIANT_OVERHEAD_BYTES,
    }),
  }
}
