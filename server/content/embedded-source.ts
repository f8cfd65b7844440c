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
  const parsedQueries = new Map<string, {tree: ExprNode; idParameter: string | undefined}>()
  const views = new WeakMap<readonly SanityDocument[], PublishedView>()
  const parseOnce = (query: string) => {
    let parsed = parsedQueries.get(query)
    if (!parsed) {
      const tree = parse(query)
      parsed = {tree, idParameter: idLookupParameter(tree)}
      parsedQueries.set(query, parsed)
    }
    return parsed
  }
  const publishedView = (documents: readonly SanityDocument[]): PublishedView => {
    let view = views.get(documents)
    if (!view) {
      // groq-js resolves `->` by scanning the whole dataset; a Map makes each lookup O(1). One loop,
      // no [id, document] pair per document: this runs on every edit of a 100k-document file.
      const dataset: SanityDocument[] = []
      const byId = new Map<string, SanityDocument>()
      for (const document of documents) {
        if (!isPublished(document)) continue
        dataset.push(document)
        byId.set(document._id, document)
      }
      view = {dataset, byId}
      views.set(documents, view)
    }
    return view
  }

  return {
    description,
    async fetch(query, params = {}) {
      const view = publishedView(await loadDocuments())
      const {tree, idParameter} = parseOnce(query)
      const {byId} = view
      // A query that can only see one document by id is evaluated over that document (an index
      // lookup, as the Content Lake makes one) instead of scanning 100k documents for it.
      const id = idParameter === undefined ? undefined : params[idParameter]
      const dataset = idParameter === undefined ? view.dataset : [typeof id === 'string' ? byId.get(id) : undefined].filter((document) => document !== undefined)
      // Synchronous evaluation: the same engine without a promise per document, 2x faster at 100k documents.
      return evaluateSync(tree, {dataset, params, dereference: ({_ref}) => byId.get(_ref)}).get()
    },
  }
}

/**
 * The parameter of `*[_id == $name]` when that is the query's only `*`: such a query sees no
 * document but the one with that id (references are followed through the index, not the dataset).
 * Undefined for any other query, which is evaluated over the whole dataset.
 */
export function idLookupParameter(tree: ExprNode): string | undefined {
  let datasets = 0
  let parameter: string | undefined
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return
    if (isNode(value)) {
      if (value.type === 'Everything') datasets++
      if (value.type === 'Filter' && value.base.type === 'Everything') parameter = idEqualsParameter(value.expr)
    }
    for (const child of Object.values(value)) visit(child)
  }
  visit(tree)
  return datasets === 1 ? parameter : undefined
}

const isNode = (value: object): value is ExprNode => 'type' in value && typeof value.type === 'string'

/** `name` for `_id == $name` (either way round), else undefined. */
function idEqualsParameter(expression: ExprNode): string | undefined {
  if (expression.type !== 'OpCall' || expression.op !== '==') return undefined
  const isId = (node: ExprNode) => node.type === 'AccessAttribute' && node.name === '_id' && node.base === undefined
  const {left, right} = expression
  if (isId(left) && right.type === 'Parameter') return right.name
  if (isId(right) && left.type === 'Parameter') return left.name
  return undefined
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
    // After a warm restart nothing was parsed: parsing now keeps the first edit from paying for it.
    prepare: async () => {
      await file.read()
    },
  }
}
