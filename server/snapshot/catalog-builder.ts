import {z} from 'zod'
import {mapCatalog, patchCatalog, type DocumentUpdate} from '../api/v1/catalog.ts'
import {createLinks, type CollectionName} from '../api/v1/links.ts'
import type {Config} from '../config.ts'
import {CATALOG_QUERY, EPISODE_BY_ID_QUERY, MEETUP_BY_ID_QUERY, REFERENCING_QUERY, VOICE_BY_ID_QUERY} from '../content/queries.ts'
import type {ContentSource} from '../content/source.ts'
import {buildSiteDocuments} from '../discovery/site-documents.ts'
import {createDemandCaches, type DemandCaches} from './demand-caches.ts'
import {buildSnapshot, type Snapshot} from './snapshot.ts'
import type {SnapshotBuilder} from './store.ts'

export type Clock = () => Date

const identified = z.looseObject({_id: z.string()})
const referencingSchema = z.object({episodes: z.array(identified), meetups: z.array(identified)})

/**
 * The one data flow: source -> GROQ -> mapping and validation -> snapshot. A change that names
 * documents reads just those (and, for a voice, the episodes and meetups that reference it) and
 * patches the previous catalog; an unknown change reads the whole catalog.
 */
export function catalogSnapshotBuilder(dependencies: {source: ContentSource; config: Config; clock: Clock; caches?: DemandCaches}): SnapshotBuilder {
  const {source, config, clock, caches = createDemandCaches(config.caches)} = dependencies
  const links = createLinks(config)
  const settings = {links, feedUrl: config.feedUrl}
  const snapshotSettings = {
    links,
    index: {apiName: config.apiName, feedUrl: config.feedUrl, contactEmail: config.contactEmail, publicBaseUrl: config.publicBaseUrl},
    site: (snapshot: Snapshot) => buildSiteDocuments(snapshot, config),
    caches,
  }
  const readDocument = async (documentId: string, collection: CollectionName): Promise<DocumentUpdate[]> => {
    if (collection !== 'voices') {
      return [{collection, documentId, row: await source.fetch(collection === 'episodes' ? EPISODE_BY_ID_QUERY : MEETUP_BY_ID_QUERY, {id: documentId})}]
    }
    const [row, referencing] = await Promise.all([source.fetch(VOICE_BY_ID_QUERY, {id: documentId}), source.fetch(REFERENCING_QUERY, {id: documentId})])
    const {episodes, meetups} = referencingSchema.parse(referencing)
    return [
      {collection, documentId, row},
      ...episodes.map((episode) => ({collection: 'episodes' as const, documentId: episode._id, row: episode})),
      ...meetups.map((meetup) => ({collection: 'meetups' as const, documentId: meetup._id, row: meetup})),
    ]
  }
  const build: SnapshotBuilder = async (previous, change) => {
    if (!previous || change.kind === 'all') {
      const catalog = mapCatalog(await source.fetch(CATALOG_QUERY), settings, previous?.catalog)
      return buildSnapshot(catalog, snapshotSettings, previous, clock())
    }
    const reads = await Promise.all([...change.documents].map(([documentId, collection]) => readDocument(documentId, collection)))
    // A document named by the change and also referencing a changed voice is applied once.
    const updates = [...new Map(reads.flat().map((update) => [update.documentId, update])).values()]
    return buildSnapshot(patchCatalog(previous.catalog, updates, settings), snapshotSettings, previous, clock())
  }
  return async (previous, change) => {
    const snapshot = await build(previous, change)
    await snapshot.precompress()
    // The bulk and site documents are built just after the store swaps the snapshot in; a request
    // that comes first builds what it asks for, so failing here loses nothing.
    setImmediate(() => snapshot.warm().catch(() => undefined))
    return snapshot
  }
}
