import type {TouchedDocument} from './source.ts'

// Which documents an edit of a dataset file touched, as a pure function over the lines it
// replaced and the lines that replaced them. ndjson-file.ts finds those lines and applies the result.

/** A replaced line: a digest of its bytes and the document it holds (undefined for a blank line). */
export interface LineContent {
  digest: string
  identity: TouchedDocument | undefined
}

/**
 * The documents whose lines changed when `before` was replaced by `after`: those whose lines, in
 * order, differ. A line that only moved among other documents' lines touches nothing; two lines of
 * one id that swapped places do (the last one is the document read). A document removed is
 * reported with its type before, one added or changed with its type after.
 */
export function touchedDocuments(before: readonly LineContent[], after: readonly LineContent[]): TouchedDocument[] {
  const linesById = (lines: readonly LineContent[]) => {
    const byId = new Map<string, {identity: TouchedDocument; digests: string[]}>()
    for (const {digest, identity} of lines) {
      if (!identity) continue
      const entry = byId.get(identity.id) ?? {identity, digests: []}
      entry.digests.push(digest)
      entry.identity = identity
      byId.set(identity.id, entry)
    }
    return byId
  }
  const [was, is] = [linesById(before), linesById(after)]
  const touched: TouchedDocument[] = []
  for (const [id, now] of is) if (was.get(id)?.digests.join() !== now.digests.join()) touched.push(now.identity)
  for (const [id, then] of was) if (!is.has(id)) touched.push(then.identity)
  return touched
}
