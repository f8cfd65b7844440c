// The service's own errors, in one place every layer may import (a foundation module), and how a
// caught value is read.

/** What a caught value says: an `Error`'s message, anything else as text (or `otherwise`, when given). */
export function errorMessage(error: unknown, otherwise?: string): string {
  return error instanceof Error ? error.message : (otherwise ?? String(error))
}

/** A start that cannot go on, told in one line naming what to fix (no stack trace). */
export class StartFailure extends Error {}

/** A build that a check refused rather than one that failed (the mass-deletion guard's hold). */
export class BuildHeld extends Error {
  override name = 'BuildHeld'
}

/** A purge the CDN did not confirm. `retryAfterMs` is the CDN's own wish (429, 503 with Retry-After). */
export class PurgeFailure extends Error {
  readonly retryAfterMs: number | undefined
  /** A refusal that retrying cannot fix (a bad token, an unknown zone): dead-lettered at once. */
  readonly permanent: boolean

  constructor(message: string, options: {retryAfterMs?: number; permanent?: boolean; cause?: unknown} = {}) {
    super(message, {cause: options.cause})
    this.name = 'PurgeFailure'
    this.retryAfterMs = options.retryAfterMs
    this.permanent = options.permanent ?? false
  }
}
