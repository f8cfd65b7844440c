import {createHash} from 'node:crypto'
import type {Catalog, CatalogEntry} from '../../catalog/v1/catalog.ts'
import {decodeCursor} from '../api/v1/cursor.ts'
import {DEFAULT_PAGE_LIMIT} from '../../catalog/v1/contract.ts'
import {COLLECTION_NAMES, COLLECTION_PATTERN, isCollectionName, type CollectionName} from '../../catalog/v1/links.ts'
import {
  episodeOrder,
  firstIndexNotBefore,
  meetupOrder,
  voiceOrder,
  type ListOrder,
  type SortKey,
} from '../../catalog/v1/order.ts'
import {nextRelease} from '../api/v1/scheduled.ts'
import {buildServiceIndex} from '../api/v1/service-index.ts'
import {chaptersPath} from '../../catalog/v1/chapters.ts'
import {isTranscriptExtension, TRANSCRIPT_FORMATS, transcriptPath} from '../../catalog/v1/transcript.ts'
import {whileBuildingNow} from './heap-growth.ts'
import {forEachConcurrently} from './compression.ts'
import {ownedBytes} from './owned-bytes.ts'
import {represent, type Representation} from './representation.ts'
import type {ChunkedBody} from './chunked-body.ts'
import {bulkBody, itemBody, itemJson, pageBody} from './list-bodies.ts'
import {listsAfterEdit, listsOf, type CollectionLists, type EntryParts} from './collection-lists.ts'
import {siteDocumentsOnFirstUse} from './site-documents-on-first-use.ts'
import {episodeDocuments, rememberEpisode} from './episode-documents.ts'
import {BULK_KEY, INDEX_KEY, itemKey, listKey} from './surrogate-keys.ts'
import {searchPage} from './search-page.ts'
import {SearchIndex} from './search-index.ts'
import {ChangeHistory} from './change-history.ts'
import {changesPage, type ChangesPageSource} from './changes-page.ts'
import {changedItems} from './changed-items.ts'
import type {ChangesRequest} from '../api/v1/changes.ts'
import type {SearchRequest} from '../api/v1/search.ts'
import type {KnownItems, PageRequest, PageResult, Snapshot, SnapshotSettings} from './snapshot-shape.ts'
import {IdentityMemo} from '../identity-memo.ts'
export type {KnownItem, KnownItems, PageRequest, PageResult, Snapshot, SnapshotSettings} from './snapshot-shape.ts'

/** What a snapshot knows about one collection; reused whole by the next snapshot when the collection did not change. */
interface CollectionState extends CollectionLists {
  name: CollectionName
  compare: (a: SortKey, b: SortKey) => number
  defaultPage: Representation<Buffer>
  digest: string
}

// Entries are immutable and a patched catalog keeps the unchanged ones, so what is made from an
// entry is memoised by its identity: a one-document update serialises, hashes and keys one item,
// and the next snapshot's lists are arrays of references to what the last one made.
const entryParts = new IdentityMemo<CatalogEntry<unknown>, EntryParts>()
const collectionStates = new WeakMap<Snapshot, Record<CollectionName, CollectionState>>()

/** `episodes/{slug}.json`: an item, by its path relative to the API prefix. */
const ITEM_DOCUMENT_PATH = new RegExp(`^(${COLLECTION_PATTERN})/(.+)\\.json$`)
/** `episodes/{slug}/chapters.json`: an episode's chapters document. */
const CHAPTERS_DOCUMENT_PATH = /^episodes\/([^/]+)\/chapters\.json$/
/** `episodes/{slug}/transcript.vtt` (or `.srt`, `.json`): an episode's transcript. */
const TRANSCRIPT_DOCUMENT_PATH = /^episodes\/([^/]+)\/transcript\.(vtt|srt|json)$/

const compressAll = (representation: Representation) => representation.precompress()

/** `known` gives items' bytes, ETags and dates already made (by a saved snapshot), so they are not serialised or hashed again. */
export function buildSnapshot(
  catalog: Catalog,
  settings: SnapshotSettings,
  previous: Snapshot | undefined,
  now: Date,
  known?: KnownItems,
  /** A restored snapshot's history (saved with it): continued when it ends at this snapshot's version. */
  restoredHistory?: ChangeHistory,
): Snapshot {
  const {links} = settings
  const previousStates = previous && collectionStates.get(previous)
  // Dates from the content itself are needed only on a fresh start, so they are computed lazily.
  // An empty catalog has no date of its own; the epoch keeps restarts in agreement.
  const catalogUpdatedAt = () => latest([catalog.episodes, catalog.meetups, catalog.voices].flat()) ?? new Date(0)
  const fresh = (entries: () => readonly CatalogEntry<unknown>[]) => () => latest(entries()) ?? catalogUpdatedAt()
  const datedBy = (earlier: Representation | undefined, contentUpdatedAt: () => Date) => (etag: string) =>
    earlier?.etag === etag ? earlier.lastModified : previous ? now : contentUpdatedAt()

  const edgeHeaders = (key: string, coarser: string) => settings.keying?.headersFor(key, coarser)
  const collectionState = <Item>(
    name: CollectionName,
    entries: readonly CatalogEntry<Item>[],
    order: ListOrder<Item>,
    madeFrom?: (representation: Representation<Buffer>, entry: CatalogEntry<Item>) => void,
  ): CollectionState => {
    const reusable = previousStates?.[name]
    if (reusable?.entries === entries) return reusable
    const representationOf = (entry: CatalogEntry<Item>, key: SortKey): Representation<Buffer> => {
      const headers = edgeHeaders(itemKey(name, key[1]), listKey(name))
      const saved = known?.get(entry)
      if (saved)
        return represent(saved.body, () => saved.lastModified, {
          variants: settings.caches.variants,
          etag: saved.etag,
          headers,
        })
      const body = itemBody(entry.value)
      // A full re-read makes new entries; unchanged bytes keep the earlier representation.
      const earlier = previous?.item(name, key[1])
      return earlier?.body.equals(body)
        ? earlier
        : represent(
            body,
            datedBy(earlier, () => new Date(entry.updatedAt)),
            {variants: settings.caches.variants, headers},
          )
    }
    const partOf = (entry: CatalogEntry<Item>) =>
      entryParts.get(entry, () => {
        const key = order.key(entry.value)
        const representation = representationOf(entry, key)
        madeFrom?.(representation, entry)
        return {representation, json: itemJson(representation), key}
      })
    const lists = (reusable && listsAfterEdit(reusable, entries, partOf)) ?? listsOf(entries, partOf)
    // One update of the joined ETags hashes the same bytes as one update per item, in one call.
    const digest = createHash('sha256')
      .update(`${name}${lists.representations.map((representation) => representation.etag).join('')}`)
      .digest('base64url')
    const state = {name, ...lists, compare: order.compare, digest}
    const defaultPage = represent(
      pageBody(state, links, DEFAULT_PAGE_LIMIT, 0),
      datedBy(
        reusable?.defaultPage,
        fresh(() => entries),
      ),
      {headers: edgeHeaders(listKey(name), listKey(name))},
    )
    return {...state, defaultPage}
  }

  const states: Record<CollectionName, CollectionState> = {
    episodes: collectionState('episodes', catalog.episodes, episodeOrder, (item, entry) =>
      rememberEpisode(item, entry),
    ),
    meetups: collectionState('meetups', catalog.meetups, meetupOrder),
    voices: collectionState('voices', catalog.voices, voiceOrder),
  }
  const version = createHash('sha256')
    .update(COLLECTION_NAMES.map((name) => states[name].digest).join(' '))
    .digest('base64url')
    .slice(0, 32)
  const contentLastModified =
    previous?.version === version ? previous.contentLastModified : previous ? now : catalogUpdatedAt()
  const index = represent(
    JSON.stringify({data: buildServiceIndex(links, settings.index)}),
    datedBy(previous?.representation('index.json'), catalogUpdatedAt),
    {
      headers: edgeHeaders(INDEX_KEY, INDEX_KEY),
    },
  )
  // Site documents are dated against the previous ones, which are read now, so that nothing the
  // new snapshot keeps refers to its predecessor (a chain of retired snapshots would never be freed).
  const earlierSite = previous?.builtSiteDocuments()
  const history = historyCell()
  const snapshot = assembleSnapshot({
    catalog,
    settings,
    states,
    version,
    builtAt: now,
    contentLastModified,
    index,
    earlierSite,
    history,
    searchIndex: previous?.searchIndex ?? new SearchIndex(),
  })
  history.value = previous
    ? previous.history.after(version, now.getTime(), itemChanges(previous, snapshot))
    : restoredHistory?.head === version
      ? restoredHistory.sharing(settings.sharedHistory)
      : ChangeHistory.startingAt(version, settings.sharedHistory)
  return snapshot
}

/** Set once, right after the snapshot is made: its history compares it with the previous one. */
function historyCell(): {value: ChangeHistory | undefined} {
  return {value: undefined}
}

/** What `next` changed against `previous`, each item with its ETag before. */
function itemChanges(previous: Snapshot, next: Snapshot) {
  return changedItems(previous, next).map(({collection, slug}) => ({
    collection,
    slug,
    before: previous.item(collection, slug)?.etag ?? null,
  }))
}

interface SnapshotParts {
  catalog: Catalog
  settings: SnapshotSettings
  states: Record<CollectionName, CollectionState>
  version: string
  builtAt: Date
  contentLastModified: Date
  index: Representation<Buffer>
  /** The previous snapshot's site documents, to keep their dates where the bytes did not change. */
  earlierSite: ReadonlyMap<string, Representation> | undefined
  history: {readonly value: ChangeHistory | undefined}
  searchIndex: SearchIndex
}

/** The snapshot object itself, made in a scope that cannot see the previous snapshot. */
function assembleSnapshot(parts: SnapshotParts): Snapshot {
  const {catalog, settings, states, version, builtAt, contentLastModified, index} = parts
  const counts = {episodes: catalog.episodes.length, meetups: catalog.meetups.length, voices: catalog.voices.length}
  const documents = new Map<string, Representation>([
    ['index.json', index],
    ...COLLECTION_NAMES.map((name) => [`${name}.json`, states[name].defaultPage] as const),
  ])

  // The bulk document grows with the whole catalog. Its bytes are the items' own, never joined into
  // one buffer, and its ETag comes from the version (the digest of every item's ETag), not a hash of it all.
  let bulk: Representation<ChunkedBody> | undefined
  const keying = settings.keying
  const bulkDocument = () =>
    (bulk ??= whileBuildingNow(() =>
      represent(bulkBody(states, counts), () => contentLastModified, {
        etag: `"${version}"`,
        headers: keying?.headersFor(BULK_KEY, BULK_KEY),
      }),
    ))

  const pageCache = settings.caches.pages
  const listPage = (collection: CollectionName, request: PageRequest): PageResult => {
    const state = states[collection]
    if (request.cursor === null && request.limit === DEFAULT_PAGE_LIMIT)
      return {ok: true, representation: state.defaultPage}
    let start = 0
    if (request.cursor !== null) {
      const decoded = decodeCursor(request.cursor)
      if (!decoded.ok) return decoded
      start = firstIndexNotBefore(state.keys, (key) => state.compare(key, decoded.key) <= 0)
    }
    // By position, not by the cursor's text: every cursor that lands on the same item shares one
    // page, so a client inventing cursors cannot fill the cache with copies.
    const cacheKey = `${version} ${collection} ${request.limit} ${start}`
    const cached = pageCache.get(cacheKey)
    if (cached) return {ok: true, representation: cached}
    // Any page may change whenever any content changes, so pages share the content's date.
    const page = represent(
      ownedBytes(pageBody(state, settings.links, request.limit, start)),
      () => contentLastModified,
      {
        headers: keying?.headersFor(listKey(collection), listKey(collection)),
      },
    )
    pageCache.set(cacheKey, page)
    return {ok: true, representation: page}
  }

  const item = (collection: CollectionName, slug: string) => states[collection].bySlug.get(slug)
  const keysMemo: ChangesPageSource['keysMemo'] = new Map()
  const {chapters, transcript} = episodeDocuments({
    itemOf: (slug) => item('episodes', slug),
    pages: pageCache,
    variants: settings.caches.variants,
    keying,
  })
  const feed = settings.feed
  const site = siteDocumentsOnFirstUse({
    documents: (leftOut) => settings.site?.(snapshot, leftOut) ?? [],
    feed: feed && {path: feed.path, build: (leftOut) => feed.build(snapshot, leftOut)},
    keying,
    earlier: parts.earlierSite,
    builtAt,
    contentLastModified,
    onLeftOut: settings.onLeftOut,
  })
  const snapshot: Snapshot = Object.freeze({
    version,
    builtAt,
    contentLastModified,
    catalog,
    nextRelease: nextRelease(catalog),
    counts: Object.freeze(counts),
    get paths() {
      return [
        ...documents.keys(),
        'all.json',
        ...COLLECTION_NAMES.flatMap((name) => states[name].keys.map((key) => `${name}/${key[1]}.json`)),
        ...catalog.episodes.flatMap((entry) => (entry.value.chapters ? [chaptersPath(entry.value.slug)] : [])),
        ...catalog.episodes.flatMap((entry) =>
          entry.transcript
            ? TRANSCRIPT_FORMATS.map((format) => transcriptPath(entry.value.slug, format.extension))
            : [],
        ),
      ]
    },
    representation(path: string) {
      if (path === 'all.json') return bulkDocument()
      const chaptersOf = CHAPTERS_DOCUMENT_PATH.exec(path)?.[1]
      if (chaptersOf !== undefined) return chapters(chaptersOf)
      const [, transcriptOf, extension] = TRANSCRIPT_DOCUMENT_PATH.exec(path) ?? []
      if (transcriptOf !== undefined && isTranscriptExtension(extension)) return transcript(transcriptOf, extension)
      const [, collection, slug] = ITEM_DOCUMENT_PATH.exec(path) ?? []
      return isCollectionName(collection) && slug ? item(collection, slug) : documents.get(path)
    },
    item,
    chapters,
    transcript,
    site: (path: string) => site.get(path),
    get sitePaths() {
      return site.paths()
    },
    precompress: () => forEachConcurrently(documents.values(), compressAll),
    warm: async () => forEachConcurrently(site.documents(), compressAll),
    listPage,
    searchPage: (request: SearchRequest) =>
      searchPage({searched: snapshot, version, contentLastModified, pages: pageCache, keying}, request),
    get history() {
      return historyOf(parts.history)
    },
    searchIndex: parts.searchIndex,
    changesPage: (request: ChangesRequest) =>
      changesPage(
        {
          version,
          contentLastModified,
          history: historyOf(parts.history),
          item,
          slugs: (collection: CollectionName) => states[collection].keys.map((key) => key[1]),
          links: settings.links,
          pages: pageCache,
          keying,
          keysMemo,
        },
        request,
      ),
    slugsToCompare: (collection: CollectionName, earlier: Snapshot) =>
      slugsToCompare(states[collection], collectionStates.get(earlier)?.[collection]),
    collectionDigest: (collection: CollectionName) => states[collection].digest,
    builtSiteDocuments: () => site.built(),
    leftOut: () => site.leftOut(),
  })
  collectionStates.set(snapshot, states)
  return snapshot
}

/** The slugs `lists` may serve differently from `earlier`: none, an edit's, or all of both. */
function slugsToCompare(lists: CollectionLists, earlier: CollectionLists | undefined): Iterable<string> {
  if (lists.id === earlier?.id) return []
  if (earlier && lists.edit?.from === earlier.id) return lists.edit.slugs
  return new Set([...(earlier?.keys ?? []), ...lists.keys].map((key) => key[1]))
}

function latest(entries: readonly CatalogEntry<unknown>[]): Date | undefined {
  let newest = Number.NEGATIVE_INFINITY
  for (const entry of entries) newest = Math.max(newest, Date.parse(entry.updatedAt))
  return Number.isFinite(newest) ? new Date(newest) : undefined
}

function historyOf(cell: {readonly value: ChangeHistory | undefined}): ChangeHistory {
  if (!cell.value) throw new Error('the history of a snapshot is read before buildSnapshot set it')
  return cell.value
}
