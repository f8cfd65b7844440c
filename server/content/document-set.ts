import {IdentityMemo} from '../identity-memo.ts'
import type {SanityDocument} from './ndjson.ts'

/**
 * The published documents one GROQ evaluation sees, as Sanity's published perspective shows them:
 * drafts and release versions are not part of it. A set may parse its documents only when asked.
 */
export interface DocumentSet {
  /** Every published document. */
  all(): readonly SanityDocument[]
  /** The published document with this id. */
  get(id: string): SanityDocument | undefined
  /** The published documents whose JSON text holds `text`: exactly those, or more (never fewer). */
  containing(text: string): readonly SanityDocument[]
}

export function isPublished(id: string): boolean {
  return !id.startsWith('drafts.') && !id.startsWith('versions.')
}

const sets = new IdentityMemo<readonly SanityDocument[], DocumentSet>()

/**
 * Documents already in memory. The set (its id index) is built once per array, so a changed
 * dataset must come as a new array, never one mutated in place.
 */
export function documentSetOf(documents: readonly SanityDocument[]): DocumentSet {
  return sets.get(documents, () => {
    // One loop, no [id, document] pair per document: this runs on every change of a large dataset.
    const published: SanityDocument[] = []
    const byId = new Map<string, SanityDocument>()
    for (const document of documents) {
      if (!isPublished(document._id)) continue
      published.push(document)
      byId.set(document._id, document)
    }
    // Held as objects, their text is not: every document is a candidate.
    return {all: () => published, get: (id) => byId.get(id), containing: () => published}
  })
}
