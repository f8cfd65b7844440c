import type {TouchedDocument} from './source.ts'

// Which documents an edit of a dataset file touched, as a pure function over the lines it
// replaced and the lines that replaced them. ndjson-file.ts finds those lines and applies the result.

/** A replaced line: a digest of its bytes and the document it holds (undefined for a blank line). */
export interface LineContent {
  digest: string
  identity: TouchedDocument | undefined
}

/**
 * The documents whose lines changed when `before` was replaced by `after`: a line that only moved
 * touches nothing. A document both removed and added again is reported once, as added.
 */
export function touchedDocuments(before: readonly LineContent[], after: readonly LineContent[]): TouchedDocument[] {
  const beforeDigests = new Set(before.map((line) => line.digest))
  const afterDigests = new Set(after.map((line) => line.digest))
  const touched = new Map<string, TouchedDocument>()
  for (const {digest, identity} of after) if (identity && !beforeDigests.has(digest)) touched.set(identity.id, identity)
  for (const {digest, identity} of before) if (identity && !afterDigests.has(digest) && !touched.has(identity.id)) touched.set(identity.id, identity)
  return [...touched.values()]
}
