import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {changedItems} from '../snapshot/changed-items.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {
  BULK_KEY,
  GLOBAL_KEY,
  INDEX_KEY,
  itemKey,
  listKey,
  SEARCH_KEY,
  siteKey,
  type SurrogateKeying,
} from '../snapshot/surrogate-keys.ts'

/**
 * Nothing any output is made from differs: the items (the version), the index and the podcast
 * settings (the version covers the items only; the feed also changes with the settings).
 */
export function unchanged(previous: Snapshot, next: Snapshot): boolean {
  return (
    previous.version === next.version &&
    previous.representation('index.json')?.etag === next.representation('index.json')?.etag &&
    JSON.stringify(previous.catalog.podcast) === JSON.stringify(next.catalog.podcast)
  )
}

/**
 * The surrogate keys whose documents differ between two snapshots, and nothing else: items whose
 * ETag changed or that came or went, lists whose digest changed (every page, cursor pages
 * included), the bulk document and every search answer, the index, and the site documents served
 * so far whose bytes changed. Without a previous snapshot (a start with no record of what the edge
 * holds) everything is purged.
 */
export function planPurge(
  previous: Snapshot | undefined,
  next: Snapshot,
  keying: Pick<SurrogateKeying, 'effectiveKey'>,
): string[] {
  if (!previous) return [GLOBAL_KEY]
  if (unchanged(previous, next)) return []
  const keys = new Set<string>()
  for (const {collection, slug} of changedItems(previous, next))
    keys.add(keying.effectiveKey(itemKey(collection, slug), listKey(collection)))
  for (const collection of COLLECTION_NAMES) {
    if (previous.collectionDigest(collection) !== next.collectionDigest(collection)) keys.add(listKey(collection))
  }
  // Any search answer may rank any item, so every one goes with any item's change.
  if (previous.version !== next.version) {
    keys.add(BULK_KEY)
    keys.add(SEARCH_KEY)
  }
  if (previous.representation('index.json')?.etag !== next.representation('index.json')?.etag) keys.add(INDEX_KEY)
  // Only the site documents the edge may hold: those built and served so far. Listing every site
  // path would build a feed no client asked for on an edit's purge path. A path the next snapshot
  // adds needs no purge: the edge never caches its 404 (problems are no-store).
  for (const [path, earlier] of previous.builtSiteDocuments() ?? []) {
    if (earlier.etag !== next.site(path)?.etag) keys.add(keying.effectiveKey(siteKey(path), siteKey(path)))
  }
  return [...keys]
}
