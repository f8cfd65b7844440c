/** A document a source reports as added, changed or removed. */
export interface TouchedDocument {
  id: string
  type: string
}

/** Where the catalog's documents come from. Both implementations run the same GROQ text. */
export interface ContentSource {
  /** Human-readable origin, for logs and status documents. */
  readonly description: string
  fetch(query: string, params?: Record<string, unknown>): Promise<unknown>
  /**
   * For a source that can tell (the dataset file): the documents that changed since the last call,
   * drafts included, so that a change rebuilds only them. Reads the source if it changed.
   */
  changedDocuments?(): Promise<TouchedDocument[]>
  /**
   * A cheap value that changes whenever the published content does, for a source that has one:
   * a snapshot saved with it is reused after a restart while it still matches.
   */
  fingerprint?(): Promise<string>
  /** Does ahead of time what the first per-document read would otherwise do (nothing, for most sources). */
  prepare?(): Promise<void>
  /** Read the whole catalog a page at a time (CATALOG_PAGE_QUERY) rather than in one response. */
  readsInPages?: boolean
}
