import {evaluateSync, parse, type ExprNode} from 'groq-js'
import {datasetLookup, type DatasetLookup} from './dataset-lookup.ts'
import {documentSetOf, type DocumentSet} from './document-set.ts'
import type {SanityDocument} from './ndjson.ts'
import {openDatasetFile} from './ndjson-file.ts'
import type {ContentSource} from './source.ts'

// A value the dataset's JSON can only hold as itself between quotes: any JSON writer (Sanity's
// export, JSON.stringify) writes these characters unescaped, so a byte search finds every holder.
const SEARCHABLE_VALUE = /^[A-Za-z0-9._-]+$/

/**
 * Evaluates GROQ with groq-js over the documents `loadDocuments` gives, as the Sanity API would
 * with the published perspective. `loadDocuments` runs on every fetch; while it returns the same
 * array, the id index built from it is reused, so a changed dataset must come as a new array.
 */
export function createEmbeddedSource(
  description: string,
  loadDocuments: () => Promise<readonly SanityDocument[]>,
): ContentSource {
  return createDocumentSetSource(description, async () => documentSetOf(await loadDocuments()))
}

/** The same over a set that may parse its documents only when a query needs them (the dataset file). */
function createDocumentSetSource(description: string, loadDocuments: () => Promise<DocumentSet>): ContentSource {
  const parsedQueries = new Map<string, {tree: ExprNode; lookup: DatasetLookup | undefined}>()
  const parseOnce = (query: string) => {
    let parsed = parsedQueries.get(query)
    if (!parsed) {
      const tree = parse(query)
      parsed = {tree, lookup: datasetLookup(tree)}
      parsedQueries.set(query, parsed)
    }
    return parsed
  }
  /** What the query can see, narrowed by an index where the query allows it (as the Content Lake's indexes do). */
  const datasetFor = (
    documents: DocumentSet,
    lookup: DatasetLookup | undefined,
    params: Record<string, unknown>,
  ): readonly SanityDocument[] => {
    const value = lookup && params[lookup.parameter]
    if (lookup?.by === 'id')
      return [typeof value === 'string' ? documents.get(value) : undefined].filter((document) => document !== undefined)
    if (lookup?.by === 'text' && typeof value === 'string' && SEARCHABLE_VALUE.test(value))
      return documents.containing(JSON.stringify(value))
    return documents.all()
  }

  return {
    description,
    async fetch(query, params = {}) {
      const documents = await loadDocuments()
      const {tree, lookup} = parseOnce(query)
      // Synchronous evaluation: the same engine without a promise per document. References are followed through the id index, never by scanning the dataset.
      const dataset = datasetFor(documents, lookup, params)
      const result: unknown = evaluateSync(tree, {dataset, params, dereference: ({_ref}) => documents.get(_ref)}).get()
      return result
    },
  }
}

/** The dataset file, read again when it changes; `changedDocuments` says which documents did. */
export function createEmbeddedFileSource(datasetFile: string): ContentSource {
  const file = openDatasetFile(datasetFile)
  const source = createDocumentSetSource(`embedded dataset ${datasetFile}`, () => file.read())
  return {
    ...source,
    async changedDocuments() {
      await file.read()
      return file.takeChanges()
    },
    fingerprint: () => file.fingerprint(),
    // After a warm restart nothing was parsed: parsing now keeps the first edit from paying for it.
    prepare: () => file.index(),
  }
}
