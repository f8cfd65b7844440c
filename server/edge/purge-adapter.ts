import {
  callService,
  succeeded,
  type CallBounds,
  type ServiceAnswer,
  type ServiceRequest,
} from '../outbound/service-call.ts'
import {PurgeFailure, errorMessage} from '../errors.ts'

/** One CDN's purge API: purges every object carrying any of `keys`, or throws a `PurgeFailure`. */
export interface PurgeAdapter {
  readonly provider: string
  purge(keys: readonly string[]): Promise<void>
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP date. */
function retryAfterMs(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined) return undefined
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const date = Date.parse(header)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Turns an HTTP answer into a failure: 429 and 5xx are worth retrying, other 4xx are not. */
function failureOf(answer: ServiceAnswer, what: string): PurgeFailure {
  const detail = answer.text.slice(0, 200)
  return new PurgeFailure(`${what}: HTTP ${answer.status}${detail ? ` ${detail}` : ''}`, {
    retryAfterMs: retryAfterMs(answer.headers['retry-after']),
    permanent: answer.status >= 400 && answer.status < 500 && answer.status !== 429 && answer.status !== 408,
  })
}

/** Sends one purge call within `bounds`; a call that cannot be sent or answered in time is a failure worth retrying. */
export async function callPurgeApi(
  url: string,
  request: ServiceRequest,
  what: string,
  bounds: Partial<CallBounds>,
): Promise<ServiceAnswer> {
  let answer: ServiceAnswer
  try {
    answer = await callService(url, request, bounds)
  } catch (error) {
    throw new PurgeFailure(`${what}: ${errorMessage(error)}`, {cause: error})
  }
  if (!succeeded(answer)) throw failureOf(answer, what)
  return answer
}

/** `items` in runs of at most `size`. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = []
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size))
  return batches
}
