import {z} from 'zod'
import {COLLECTION_OF_DOCUMENT_TYPE, SERVED_DOCUMENT_TYPES} from '../../catalog/document-types.ts'
import {CATALOG_PAGE_QUERY, CATALOG_PAGE_SIZE, CATALOG_QUERY, PODCAST_SETTINGS_QUERY} from '../../catalog/queries.ts'
import type {ContentSource} from './source.ts'

const pageSchema = z.array(z.looseObject({_id: z.string(), _type: z.enum(SERVED_DOCUMENT_TYPES)}))
type Row = z.infer<typeof pageSchema>[number]

/**
 * The whole published catalog in CATALOG_QUERY's shape. A source that reads in pages is asked
 * for CATALOG_PAGE_QUERY until a page comes back short; each page continues after the last _id
 * of the one before, so a document published meanwhile is read at most once. Pages are separate
 * reads: an edit between two of them arrives as its own change (webhook or reconcile) afterwards.
 */
export async function readCatalog(source: ContentSource): Promise<unknown> {
  if (!source.readsInPages) return source.fetch(CATALOG_QUERY)
  const catalog: Record<(typeof COLLECTION_OF_DOCUMENT_TYPE)[Row['_type']], Row[]> = {
    episodes: [],
    meetups: [],
    voices: [],
  }
  // The settings singleton is one document: read beside the pages rather than in every page's projection.
  const podcast = await source.fetch(PODCAST_SETTINGS_QUERY)
  let after = ''
  for (;;) {
    const page = pageSchema.safeParse(await source.fetch(CATALOG_PAGE_QUERY, {after}))
    // The first issue only: a broken page of 10,000 rows would otherwise make a 10,000-line message.
    if (!page.success)
      throw new Error(
        `the catalog page after "${after}" is not a list of documents: ${page.error.issues[0]?.path.join('.')}: ${page.error.issues[0]?.message}`,
      )
    for (const row of page.data) catalog[COLLECTION_OF_DOCUMENT_TYPE[row._type]].push(row)
    const last = page.data.at(-1)
    if (!last || page.data.length < CATALOG_PAGE_SIZE) return {...catalog, podcast}
    after = last._id
  }
}
