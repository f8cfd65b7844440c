/**
 * The delay before retry number `retry` (1 for the first): `firstMs`, doubled for each further
 * retry, at most `maxMs`. The one exponential backoff of the snapshot store, the purge queue
 * (which draws full jitter under it) and the calls that tell other services of a change.
 */
export function backoffDelay(retry: number, firstMs: number, maxMs = Number.POSITIVE_INFINITY): number {
  return Math.min(firstMs * 2 ** (retry - 1), maxMs)
}
