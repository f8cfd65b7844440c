// Stand-in snapshots for the saved snapshot file's tests: they hold only what saving reads (the
// catalog's entries and each item's served bytes, ETag and date), so bodies can be of any size
// and any shape. The two casts of the test suite's saved-snapshot tests live here.
import type {Catalog} from '../../catalog/v1/catalog.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import {transcriptRevision} from '../../catalog/v1/transcript.ts'
import {strongEtag} from '../../server/snapshot/representation.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'

/** One served item: its slug, its bytes, and for an episode that holds one, its transcript's bytes. */
export interface StandInItem {
  slug: string
  body: Buffer
  transcript?: Buffer
}

interface StandInOptions {
  /** A slug the catalog lists but the snapshot does not serve. */
  missing?: string
  /** Each item's ETag; by default a stand-in, as saving does not check it (loading a damaged file does). */
  etagOf?: (item: StandInItem) => string
  problems?: readonly unknown[]
  /** Each entry's document id; `{collection}-{slug}` by default. */
  documentIdOf?: (collection: CollectionName, slug: string) => string
  /** Each item's date and its entry's `updatedAt`, by its place in its collection. */
  datedBy?: (index: number) => {lastModified: Date; updatedAt: string}
}

const byPlace = (index: number) => ({
  lastModified: new Date(`2025-0${index + 1}-01T00:00:00Z`),
  updatedAt: `2026-01-0${index + 1}T00:00:00Z`,
})

export function standInSnapshot(
  collections: Partial<Record<CollectionName, StandInItem[]>>,
  options: StandInOptions = {},
): Snapshot {
  const {
    etagOf = (entry: StandInItem) => `"etag-${entry.slug}"`,
    documentIdOf = (collection, slug) => `${collection}-${slug}`,
    datedBy = byPlace,
  } = options
  const entries = (name: CollectionName) =>
    (collections[name] ?? []).map((entry, index) => ({
      // An entry that holds a transcript names its revision, as an episode's item does.
      value: entry.transcript
        ? {slug: entry.slug, transcript_revision: transcriptRevision(entry.transcript)}
        : {slug: entry.slug},
      documentId: documentIdOf(name, entry.slug),
      updatedAt: datedBy(index).updatedAt,
      ...(entry.transcript ? {transcript: entry.transcript} : {}),
    }))
  const catalog = {
    episodes: entries('episodes'),
    meetups: entries('meetups'),
    voices: entries('voices'),
    problems: options.problems ?? [],
    podcast: null,
  } as unknown as Catalog
  return {
    catalog,
    builtAt: new Date('2026-02-02T00:00:00Z'),
    item: (name: CollectionName, slug: string) => {
      const items = collections[name] ?? []
      const found = items.find((entry) => entry.slug === slug)
      return found && slug !== options.missing
        ? {body: found.body, etag: etagOf(found), lastModified: datedBy(items.indexOf(found)).lastModified}
        : undefined
    },
  } as unknown as Snapshot
}

/** One episode per body (ep-0, ep-1, …), each served with its strong ETag, and the problems given. */
export const snapshotOf = (bodies: Buffer[], problems: unknown[] = []): Snapshot =>
  standInSnapshot(
    {episodes: bodies.map((body, index) => ({slug: `ep-${index}`, body}))},
    {
      problems,
      etagOf: (item) => strongEtag(item.body),
      documentIdOf: (_, slug) => slug,
      datedBy: () => ({lastModified: new Date(0), updatedAt: '2026-01-01T00:00:00Z'}),
    },
  )
