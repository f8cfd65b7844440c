import {evaluateSync, parse, type ExprNode} from 'groq-js'
import type {SanityDocument} from './ndjson.ts'
import {openDatasetFile} from './ndjson-file.ts'
import type {ContentSource} from './source.ts'

/** Sanity's published perspective: drafts and release versions are not part of it. */
function isPublished(document: SanityDocument): boolean {
  return !document._id.startsWith('drafts.') && !document._id.startsWith('versions.')
}

interface PublishedView {
  dataset: SanityDocument[]
  byId: Map<string, SanityDocument>
}

/**
 * Evaluates GROQ with groq-js over documents held in memory, as the Sanity API would with the
 * published perspective. `loadDocuments` runs on every fetch; while it returns the same array,
 * the published view and the id index built from it are reused, so a changed dataset must come
 * as a new array (never mutate one in place).
 */
export function createEmbeddedSource(description: string, loadDocuments: () => Promise<readonly SanityDocument[]>): ContentSource {
  const parsedQueries = new Map<string, ExprNode>()
  const views = new WeakMap<readonly SanityDocument[], PublishedView>()
  const parseOnce = (query: string): ExprNode => {
    let tree = parsedQueries.get(query)
    if (!tree) {
      tree = parse(query)
      parsedQueries.set(query, tree)
    }
    return tree
  }
  const publishedView = (documents: readonly SanityDocument[]): PublishedView => {
    let view = views.get(documents)
    if (!view) {
      const dataset = documents.filter(isPublished)
      // groq-js resolves `->` by scanning the whole dataset; a Map makes each lookup O(1).
      view = {dataset, byId: new Map(dataset.map((document) => [document._id, document]))}
      views.set(documents, view)
    }
    return view
  }

  return {
    description,
    async fetch(query, params = {}) {
      const {dataset, byId} = publishedView(await loadDocuments())
      // Synchronous evaluation: the same engine without a promise per document, 2x faster at 100k documents.
      return evaluateSync(parseOnce(query), {dataset, params, dereference: ({_ref}) => byId.get(_ref)}).get()
    },
  }
}

/** The dataset file, read again when it changes; `changedDocuments` says which documents did. */
export function createEmbeddedFileSource(datasetFile: string): ContentSource {
  const file = openDatasetFile(datasetFile)
  const source = createEmbeddedSource(`embedded dataset ${datasetFile}`, () => file.read())
  return {
    ...source,
    async changedDocuments() {
      await file.read()
      return file.takeChanges()
    },
    fingerprint: () => file.fingerprint(),
  }
}
