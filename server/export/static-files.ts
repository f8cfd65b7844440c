import {z} from 'zod'
import {paginationSchema} from '../../catalog/v1/contract.ts'
import {API_V1_PREFIX, COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import {DEFAULT_PAGE_LIMIT} from '../../catalog/v1/contract.ts'
import type {PageResult, Snapshot} from '../snapshot/snapshot.ts'
import type {Representation} from '../snapshot/representation.ts'

/** One representation at one URL, and the file that holds it in a static export. */
export interface StaticFile {
  /** The URL path (and query, for later list pages) the origin serves it at. */
  url: string
  /** Where the file goes, relative to the export's root. */
  file: string
  representation: Representation
}

const API_PREFIXES = [`${API_V1_PREFIX}/`, `${API_V1_PREFIX}/sandbox/`] as const
/** Later pages of a list live beside the list: `/api/v1/episodes.json?cursor=C` is `/api/v1/episodes/_cursor/C.json`. */
export const CURSOR_DIRECTORY = '_cursor'

/** Every representation a client can read from the snapshot, API and sandbox, documents and pages, without MCP and status. */
export function staticFiles(snapshot: Snapshot): StaticFile[] {
  const files: StaticFile[] = []
  for (const prefix of API_PREFIXES) {
    for (const path of snapshot.paths) {
      const representation = snapshot.representation(path)
      if (representation) files.push({url: `${prefix}${path}`, file: `${prefix}${path}`, representation})
    }
    for (const collection of COLLECTION_NAMES) {
      for (const {cursor, representation} of laterPages(snapshot, collection)) {
        files.push({
          url: `${prefix}${collection}.json?cursor=${cursor}`,
          file: `${prefix}${collection}/${CURSOR_DIRECTORY}/${cursor}.json`,
          representation,
        })
      }
    }
  }
  for (const path of snapshot.sitePaths) {
    const representation = snapshot.site(path)
    if (representation) files.push({url: path, file: path, representation})
  }
  return files
}

/** The pages a client reaches by following `next` from the default first page. */
function* laterPages(snapshot: Snapshot, collection: CollectionName) {
  let cursor = nextCursor(snapshot.listPage(collection, {limit: DEFAULT_PAGE_LIMIT, cursor: null}))
  while (cursor) {
    const page = snapshot.listPage(collection, {limit: DEFAULT_PAGE_LIMIT, cursor})
    if (!page.ok) throw new Error(`page after cursor ${cursor} of ${collection}: ${page.reason}`)
    yield {cursor, representation: page.representation}
    cursor = nextCursor(page)
  }
}

const pageSchema = z.object({pagination: paginationSchema})

function nextCursor(page: PageResult): string | null {
  if (!page.ok) throw new Error(page.reason)
  return pageSchema.parse(JSON.parse(page.representation.body.toString('utf8'))).pagination.next_cursor
}
