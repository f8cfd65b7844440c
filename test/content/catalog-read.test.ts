// The paged catalog read (CATALOG_PAGE_QUERY, keyset by _id) gives the catalog the single query
// gives, over a dataset larger than one page, with each page continuing after the last id before.
import {readFile} from 'node:fs/promises'
import {beforeAll, describe, expect, it} from 'vitest'
import {growDataset} from '../../support/grow-dataset.ts'
import {mapCatalog} from '../../catalog/v1/catalog.ts'
import {createLinks} from '../../catalog/v1/links.ts'
import {readCatalog} from '../../server/content/catalog-read.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {CATALOG_PAGE_QUERY, CATALOG_PAGE_SIZE, CATALOG_QUERY} from '../../catalog/queries.ts'
import type {ContentSource} from '../../server/content/source.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

let documents: SanityDocument[]
let paged: {read: unknown; pagesAfter: string[]}
let whole: unknown
// One paged read and one single query over 15,000 documents, shared by the tests: on a loaded
// two-core machine each took seconds, so this is a liveness bound, not a speed one.
beforeAll(async () => {
  const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  // Drafts stay in: a page must not count them (the published perspective hides them).
  documents = [
    ...growDataset(sample, CATALOG_PAGE_SIZE * 1.5),
    ...sample.filter((document) => document._id.startsWith('drafts.')),
  ]
  const {source, pagesAfter} = pagedSource()
  paged = {read: await readCatalog(source), pagesAfter}
  whole = await source.fetch(CATALOG_QUERY)
}, 120_000)

/** The embedded source as a paged source, recording the `$after` of every page it is asked for. */
function pagedSource(): {source: ContentSource; pagesAfter: string[]} {
  const embedded = createEmbeddedSource('grown', async () => documents)
  const pagesAfter: string[] = []
  const fetch: ContentSource['fetch'] = (query, params = {}) => {
    if (query === CATALOG_PAGE_QUERY) pagesAfter.push(String(params.after))
    return embedded.fetch(query, params)
  }
  return {source: {...embedded, fetch, readsInPages: true}, pagesAfter}
}

const settings = {
  links: createLinks({
    publicBaseUrl: 'https://api.test',
    siteUrl: 'https://site.test',
    images: {projectId: 'embedded', dataset: 'production'},
  }),
  feedUrl: 'https://site.test/feed.xml',
}
const ids = (rows: unknown) => (Array.isArray(rows) ? rows.map((row: {_id: string}) => row._id).sort() : [])

describe('reading the catalog in pages', () => {
  it('reads every published document once, in pages that each continue after the last id before', () => {
    const {pagesAfter} = paged
    expect(pagesAfter.length).toBe(2)
    expect(pagesAfter[0]).toBe('')
    for (const collection of ['episodes', 'meetups', 'voices'] as const) {
      const [pagedIds, wholeIds] = [ids(Object(paged.read)[collection]), ids(Object(whole)[collection])]
      expect(pagedIds.length, collection).toBeGreaterThan(0)
      expect(pagedIds, collection).toEqual(wholeIds)
    }
    const all = Object.values(Object(paged.read))
      .flat()
      .map((row) => Object(row)._id)
    expect(all.filter((id) => id <= (pagesAfter[1] ?? ''))).toHaveLength(CATALOG_PAGE_SIZE)
    expect(new Set(all).size).toBe(all.length)
  })

  it('maps to the same catalog as the single query', () => {
    expect(mapCatalog(paged.read, settings)).toEqual(mapCatalog(whole, settings))
  }, 60_000)

  it('refuses a page that is not a list of documents, naming where', async () => {
    const {source} = pagedSource()
    const broken: ContentSource = {...source, fetch: async () => [{_id: 'x', _type: 'podcast'}]}
    await expect(readCatalog(broken)).rejects.toThrow(/catalog page after "" is not a list of documents: 0\._type/)
  })
})
