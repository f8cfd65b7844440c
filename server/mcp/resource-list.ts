import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'

/** One entry of `resources/list`. */
interface ListedResource {
  uri: string
  name: string
  title: string
  description?: string
  mimeType: 'application/json'
}

/** Entries per `resources/list` page: a large catalog is many pages, not one answer as large as itself. */
export const RESOURCES_PER_PAGE = 200

/**
 * `resources/list` as the protocol pages it: the fixed documents, then every item of every
 * collection in the API's order. A cursor is the offset of the next entry in the snapshot the
 * client is reading; if the content changes between two pages, a later page may repeat or skip an
 * item that moved, as with any offset, and the next full listing is exact again.
 */
export function resourceCount(snapshot: Snapshot, fixed: readonly ResourceDefinition[]): number {
  return fixed.length + COLLECTION_NAMES.reduce((total, name) => total + snapshot.catalog[name].length, 0)
}

export type ResourcePage =
  {ok: true; resources: ListedResource[]; nextCursor: string | undefined} | {ok: false; reason: string}

export function resourcePage(
  snapshot: Snapshot,
  fixed: readonly ResourceDefinition[],
  cursor: string | undefined,
): ResourcePage {
  const total = resourceCount(snapshot, fixed)
  const start = cursor === undefined ? 0 : offsetOf(cursor)
  if (start === undefined || start > total)
    return {
      ok: false,
      reason: `Invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of the previous page, or none for the first.`,
    }
  const end = Math.min(start + RESOURCES_PER_PAGE, total)
  const resources: ListedResource[] = []
  for (let index = start; index < end; index++) resources.push(entryAt(snapshot, fixed, index))
  return {ok: true, resources, nextCursor: end < total ? Buffer.from(String(end)).toString('base64url') : undefined}
}

function offsetOf(cursor: string): number | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  return /^(0|[1-9]\d{0,8})$/.test(text) ? Number(text) : undefined
}

function entryAt(snapshot: Snapshot, fixed: readonly ResourceDefinition[], index: number): ListedResource {
  const document = fixed[index]
  if (document)
    return {
      uri: document.uri,
      name: document.name,
      title: document.title,
      description: document.description,
      mimeType: 'application/json',
    }
  let offset = index - fixed.length
  for (const name of COLLECTION_NAMES) {
    const entry = snapshot.catalog[name][offset]
    if (entry) {
      const {value} = entry
      return {
        uri: value.api_url,
        name: value.slug,
        title: 'title' in value ? value.title : value.name,
        mimeType: 'application/json',
      }
    }
    offset -= snapshot.catalog[name].length
  }
  throw new RangeError(`no resource at ${index}`)
}

export interface ResourceDefinition {
  name: string
  title: string
  description: string
  /** A fixed URI, or a URI template with `{slug}`. */
  uri: string
  /** For a URI template: the collection whose items it addresses, or `any` for every document by path. */
  template: false | CollectionName | 'any'
}
