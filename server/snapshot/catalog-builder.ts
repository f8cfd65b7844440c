import {mapCatalog} from '../api/v1/catalog.ts'
import {createLinks} from '../api/v1/links.ts'
import type {Config} from '../config.ts'
import {CATALOG_QUERY} from '../content/queries.ts'
import type {ContentSource} from '../content/source.ts'
import {buildSnapshot} from './snapshot.ts'
import type {SnapshotBuilder} from './store.ts'

export type Clock = () => Date

/** The one data flow: source -> GROQ -> mapping and validation -> snapshot. */
export function catalogSnapshotBuilder(dependencies: {source: ContentSource; config: Config; clock: Clock}): SnapshotBuilder {
  const {source, config, clock} = dependencies
  const links = createLinks(config)
  const index = {apiName: config.apiName, feedUrl: config.feedUrl, contactEmail: config.contactEmail}
  return async (previous) => {
    const result = await source.fetch(CATALOG_QUERY)
    const catalog = mapCatalog(result, {links, feedUrl: config.feedUrl})
    return buildSnapshot(catalog, {links, index}, previous, clock())
  }
}
