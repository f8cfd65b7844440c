/** One CDN's purge API: purges every object carrying any of `keys`, or throws a `PurgeFailure`. */
export interface PurgeAdapter {
  readonly provider: string
  purge(keys: readonly string[]): Promise<void>
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

/** RFC 9110 Retry-After: delay-seconds or an HTTP date. */
function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Turns an HTTP answer into a failure: 429 and 5xx are worth retrying, other 4xx are not. */
export async function failureOf(response: Response, what: string): Promise<PurgeFailure> {
  const detail = (await response.text().catch(() => '')).slice(0, 200)
  return new PurgeFailure(`${what}: HTTP ${response.status}${detail ? ` ${detail}` : ''}`, {
    retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    permanent: response.status >= 400 && response.status < 500 && response.status !== 429 && response.status !== 408,
  })
}

/** `items` in runs of at most `size`. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = []
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size))
  return batches
}
