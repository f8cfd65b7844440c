import type {SanityDocument} from '../server/content/ndjson.ts'

// Written from Sanity's documentation, not from the server's code, so that a bug in the server's
// published filter is not mirrored here: in the `published` perspective the Content Lake hides
// drafts (ids under the `drafts.` path) and Content Release versions (`versions.<release>.<id>`).
const HIDDEN_PATHS = ['drafts.', 'versions.']

export function isPublishedId(id: string): boolean {
  return !HIDDEN_PATHS.some((path) => id.startsWith(path))
}

interface PublishedView {
  documents: readonly SanityDocument[]
  byId: ReadonlyMap<string, SanityDocument>
}

const views = new WeakMap<readonly SanityDocument[], PublishedView>()

/** The published documents and their id index, made once per array (a stand-in at 100k documents measures the server, not itself). */
export function publishedViewOf(all: readonly SanityDocument[]): PublishedView {
  let view = views.get(all)
  if (!view) {
    const documents = all.filter((document) => isPublishedId(document._id))
    view = {documents, byId: new Map(documents.map((document) => [document._id, document]))}
    views.set(all, view)
  }
  return view
}
