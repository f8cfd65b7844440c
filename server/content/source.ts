/** Where the catalog's documents come from. Both implementations run the same GROQ text. */
export interface ContentSource {
  /** Human-readable origin, for logs and status documents. */
  readonly description: string
  fetch(query: string, params?: Record<string, unknown>): Promise<unknown>
}
