// A stand-in snapshot for the saved snapshot file's tests: one episode per body (ep-0, ep-1, …),
// each served with its strong ETag, and the problems given.
import type {Catalog} from '../../server/api/v1/catalog.ts'
import type {CollectionName} from '../../server/api/v1/links.ts'
import {strongEtag} from '../../server/snapshot/representation.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'

export function snapshotOf(bodies: Buffer[], problems: unknown[] = []): Snapshot {
  const slugs = bodies.map((_, index) => `ep-${index}`)
  const catalog = {
    episodes: slugs.map((slug) => ({value: {slug}, documentId: slug, updatedAt: '2026-01-01T00:00:00Z'})),
    meetups: [],
    voices: [],
    problems,
    podcast: null,
  } as unknown as Catalog
  return {
    catalog,
    builtAt: new Date('2026-02-02T00:00:00Z'),
    item: (_: CollectionName, slug: string) => {
      const found = bodies[slugs.indexOf(slug)]
      return found && {body: found, etag: strongEtag(found), lastModified: new Date(0)}
    },
  } as unknown as Snapshot
}
