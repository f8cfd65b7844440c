import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'

/** An item whose served bytes differ between two snapshots: edited, or present in only one of them. */
export interface ChangedItem {
  collection: CollectionName
  slug: string
  change: 'edited' | 'added' | 'removed'
}

/** What the comparison reads of a snapshot (snapshot.ts's Snapshot, which builds its history with it). */
export interface ComparedSnapshot {
  item(collection: CollectionName, slug: string): {readonly etag: string} | undefined
  slugsToCompare(collection: CollectionName, earlier: this): Iterable<string>
}

/**
 * The items whose ETags differ between `previous` and `next`, comparing only the slugs an edit
 * touched when `next` was made from `previous` (every slug of both otherwise). The CDN purge plan
 * and the MCP listen streams both read this one comparison.
 */
export function changedItems<S extends ComparedSnapshot>(previous: S, next: S): ChangedItem[] {
  const changed: ChangedItem[] = []
  for (const collection of COLLECTION_NAMES) {
    for (const slug of next.slugsToCompare(collection, previous)) {
      const before = previous.item(collection, slug)?.etag
      const after = next.item(collection, slug)?.etag
      if (before === after) continue
      const change = before === undefined ? 'added' : after === undefined ? 'removed' : 'edited'
      changed.push({collection, slug, change})
    }
  }
  return changed
}
