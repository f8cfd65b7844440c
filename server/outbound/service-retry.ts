import {backoffDelay} from '../backoff.ts'
import {succeeded, type ServiceAnswer} from './service-call.ts'

// The one backoff for calls that tell another service of a change (the WebSub hub, Podcast Index,
// Podping): a call that fails or answers other than 2xx is sent again after a delay that doubles,
// then given up. Each attempt is bounded by callService; the delays never keep the process alive.

export interface RetrySchedule {
  /** Attempts per call, the first included. */
  attempts: number
  /** Delay before the first retry; it doubles for each further one. */
  retryDelayMs: number
}

export type RetriedCall = {ok: true} | {ok: false; error: unknown}

/**
 * Sends `request` until it answers 2xx or `attempts` are used up. `onFailedAttempt` hears each
 * failure with the delay before the next attempt (undefined: that was the last one).
 */
export async function callWithRetries(
  target: string,
  request: () => Promise<ServiceAnswer>,
  schedule: RetrySchedule & {onFailedAttempt?: (error: unknown, retryInMs: number | undefined) => void},
): Promise<RetriedCall> {
  const {attempts, retryDelayMs, onFailedAttempt} = schedule
  let lastError: unknown
  for (let tried = 0; tried < attempts; tried++) {
    if (tried > 0) await new Promise((resolve) => setTimeout(resolve, backoffDelay(tried, retryDelayMs)).unref())
    try {
      const answer = await request()
      if (succeeded(answer)) return {ok: true}
      lastError = new Error(`${target} answered ${answer.status}${answer.text ? `: ${answer.text.slice(0, 200)}` : ''}`)
    } catch (error) {
      lastError = error
    }
    onFailedAttempt?.(lastError, tried + 1 < attempts ? backoffDelay(tried + 1, retryDelayMs) : undefined)
  }
  return {ok: false, error: lastError}
}
