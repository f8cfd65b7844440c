import {mapCatalog, patchCatalog, type DocumentUpdate} from '../api/v1/catalog.ts'
import {createLinks} from '../api/v1/links.ts'
import type {Config} from '../config.ts'
import {CATALOG_QUERY, EPISODE_BY_ID_QUERY, MEETUP_BY_ID_QUERY} from '../content/queries.ts'
import type {ContentSource} from '../content/source.ts'
import {buildSiteDocuments} from '../discovery/site-documents.ts'
import {createDemandCaches, type DemandCaches} from './demand-caches.ts'
import {buildSnapshot, type Snapshot} from './snapshot.ts'
import type {SnapshotBuilder} from './store.ts'

export type Clock = () => Date

/**
 * The one data flow: source -> GROQ -> mapping and validation -> snapshot. A change that names
 * only episodes and meetups reads just those documents and patches the previous catalog; anything
 * else (a voice, which other items link to, or an unknown change) reads the whole catalog.
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
  const build: SnapshotBuilder = async (previous, change) => {
    const documents = change.kind === 'documents' ? [...change.documents] : []
    const patchable = previous && change.kind === 'documents' && documents.every(([, collection]) => collection !== 'voices')
    if (!patchable) {
      const catalog = mapCatalog(await source.fetch(CATALOG_QUERY), settings, previous?.catalog)
      return buildSnapshot(catalog, snapshotSettings, previous, clock())
    }
    const updates = await Promise.all(
      documents.map(async ([documentId, collection]): Promise<DocumentUpdate> => {
        const query = collection === 'episodes' ? EPISODE_BY_ID_QUERY : MEETUP_BY_ID_QUERY
        return {collection, documentId, row: await source.fetch(query, {id: documentId})}
      }),
    )
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
