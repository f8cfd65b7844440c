import {readFile} from 'node:fs/promises'
import {evaluate, parse, type ExprNode} from 'groq-js'
import {parseNdjson, type SanityDocument} from './ndjson.ts'
import type {ContentSource} from './source.ts'

/** Sanity's published perspective: drafts and release versions are not part of it. */
function isPublished(document: SanityDocument): boolean {
  return !document._id.startsWith('drafts.') && !document._id.startsWith('versions.')
}

/**
 * Evaluates GROQ with groq-js over documents held in memory, as the Sanity API would with the
 * published perspective. `loadDocuments` runs on every fetch, so a rebuild sees the latest file.
 */
export function createEmbeddedSource(
  description: string,
  loadDocuments: () => Promise<SanityDocument[]>,
): ContentSource {
  const parsedQueries = new Map<string, ExprNode>()
  const parseOnce = (query: string): ExprNode => {
    let tree = parsedQueries.get(query)
    if (!tree) {
      tree = parse(query)
      parsedQueries.set(query, tree)
    }
    return tree
  }

  return {
    description,
    async fetch(query, params = {}) {
      const dataset = (await loadDocuments()).filter(isPublished)
      // groq-js resolves `->` by scanning the whole dataset; a Map makes each lookup O(1).
      const byId = new Map(dataset.map((document) => [document._id, document]))
      const result = await evaluate(parseOnce(query), {
        dataset,
        params,
        dereference: ({_ref}) => byId.get(_ref),
      })
      return result.get()
    },
  }
}

export function createEmbeddedFileSource(datasetFile: string): ContentSource {
  return createEmbeddedSource(`embedded dataset ${datasetFile}`, async () =>
    parseNdjson(await readFile(datasetFile, 'utf8'), datasetFile),
  )
}
