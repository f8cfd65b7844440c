/** What a caught value says: an `Error`'s message, anything else as text (or `otherwise`, when given). */
export function errorMessage(error: unknown, otherwise?: string): string {
  return error instanceof Error ? error.message : (otherwise ?? String(error))
}
