// A small catalog and the settings to build its snapshot with buildSnapshot, for tests that control
// the site documents and the feed themselves (and count how often they are built).
import {mapCatalog, type Catalog} from '../../catalog/v1/catalog.ts'
import {createLinks} from '../../catalog/v1/links.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {CATALOG_QUERY} from '../../catalog/queries.ts'
import {createDemandCaches} from '../../server/snapshot/demand-caches.ts'
import type {SnapshotSettings} from '../../server/snapshot/snapshot.ts'

const PUBLIC_BASE_URL = 'http://api.test'
const FEED_URL = `${PUBLIC_BASE_URL}/feed.xml`
const TEST_LINKS = createLinks({
  publicBaseUrl: PUBLIC_BASE_URL,
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})

/** The catalog of these documents, read with the server's own query and mapping. */
export async function catalogOf(documents: readonly SanityDocument[]): Promise<Catalog> {
  return mapCatalog(await createEmbeddedSource('inline', async () => documents).fetch(CATALOG_QUERY), {
    links: TEST_LINKS,
    feedUrl: FEED_URL,
  })
}

/** Settings for buildSnapshot with the test's own site documents, feed and keying (any left out: none), and what is told of items they leave out. */
export function snapshotSettings(
  chosen: Pick<SnapshotSettings, 'site' | 'feed' | 'keying'> & Partial<Pick<SnapshotSettings, 'onLeftOut'>>,
): SnapshotSettings {
  return {
    links: TEST_LINKS,
    index: {apiName: 'Catalog', feedUrl: FEED_URL, publicBaseUrl: PUBLIC_BASE_URL},
    caches: createDemandCaches({pageCacheBytes: 1 << 20, variantCacheBytes: 1 << 20}),
    ...chosen,
  }
}
