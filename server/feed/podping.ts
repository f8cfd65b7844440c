// Podping (podping.cloud): after a snapshot that changed the feed is served, the feed's address is
// announced to Podping, which writes it to the Hive blockchain, where the hosts and apps that follow
// Podping (Pocket Casts among them) read it. Like the WebSub ping it says only "this URL changed",
// with the same trigger (websub.ts). Unlike it, the changes of a burst make one announcement, and
// failures are kept for /status and /metrics and logged once per run of them, not per retry.

import type {Logger} from 'pino'
import type {Clock} from '../clock.ts'
import {callService, type ServiceAnswer, type ServiceRequest} from '../outbound/service-call.ts'
import {callWithRetries} from '../outbound/service-retry.ts'
import {SERVER_VERSION} from '../version.ts'
import type {FeedPinger} from './websub.ts'
import {errorMessage} from '../errors.ts'

/** podping.cloud refuses a call without a User-Agent; this one names the service and its version. */
const USER_AGENT = `podcast-catalog-api/${SERVER_VERSION} (Podping publisher)`

/** What became of an attempt: `announced` (Podping took it), `retried` (failed, sent again), `given_up` (failed, the last attempt). */
export const PODPING_OUTCOMES = ['announced', 'retried', 'given_up'] as const
export type PodpingOutcome = (typeof PODPING_OUTCOMES)[number]

export interface PodpingStatus {
  lastAnnouncedAt: Date | undefined
  /** The last failure's message (kept after a success, with its time, for the record). */
  lastError: string | undefined
  lastErrorAt: Date | undefined
  /** Failed attempts since Podping last took an announcement; 0 while it takes them. */
  consecutiveFailures: number
  /** Attempts since start, by outcome. */
  counts: Readonly<Record<PodpingOutcome, number>>
}

export interface PodpingSettings {
  /** PODPING_URL: `GET <url>?url=<feed>&reason=update&medium=podcast`. */
  url: string
  /** PODPING_TOKEN: sent as the `Authorization` header's whole value, as podping.cloud expects. */
  token: string
  /** The feed's public address: what is announced. */
  feedUrl: string
  log: Logger
  clock?: Clock
  /** Attempts per announcement, the first included. */
  attempts?: number
  /** Delay before the first retry; it doubles for each further one. */
  retryDelayMs?: number
  /** How long after a change the announcement waits, so that the changes of a burst make one. */
  coalesceMs?: number
  /** Sends a call within its bounds: callService, or a stand-in in a unit test. */
  send?: (url: URL, request: ServiceRequest) => Promise<ServiceAnswer>
}

export interface PodpingAnnouncer extends FeedPinger {
  status(): PodpingStatus
}

export function createPodpingAnnouncer(settings: PodpingSettings): PodpingAnnouncer {
  const {feedUrl, log, clock = () => new Date(), attempts = 4, retryDelayMs = 1000, coalesceMs = 1000} = settings
  const send = settings.send ?? callService
  const target = new URL(settings.url)
  target.searchParams.set('url', feedUrl)
  target.searchParams.set('reason', 'update')
  target.searchParams.set('medium', 'podcast')
  const request: ServiceRequest = {method: 'GET', headers: {authorization: settings.token, 'user-agent': USER_AGENT}}
  // Named in messages: the address, never the token (it travels in a header).
  const shown = `Podping (${settings.url})`

  const counts: Record<PodpingOutcome, number> = {announced: 0, retried: 0, given_up: 0}
  let lastAnnouncedAt: Date | undefined
  let lastError: string | undefined
  let lastErrorAt: Date | undefined
  let consecutiveFailures = 0

  const failed = (error: unknown, retryInMs: number | undefined) => {
    consecutiveFailures += 1
    lastError = errorMessage(error)
    lastErrorAt = clock()
    counts[retryInMs === undefined ? 'given_up' : 'retried'] += 1
    if (consecutiveFailures === 1)
      log.warn(
        {err: error},
        `${shown} did not take the announcement of ${feedUrl}: ${lastError}; retrying with backoff. Further failures are counted in /status (podping) and catalog_podping_announcements_total, not logged, until it takes one`,
      )
  }
  const succeeded = () => {
    counts.announced += 1
    lastAnnouncedAt = clock()
    if (consecutiveFailures > 0)
      log.info(`${shown} takes announcements again, after ${consecutiveFailures} failed attempts`)
    else log.info(`announced ${feedUrl} to ${shown}`)
    consecutiveFailures = 0
  }

  // `waiting`: a change that no attempt sent so far covers. An attempt covers every change seen
  // before it is sent, so a change during a retry's delay rides on the retry, and one during a
  // call makes one more announcement after it.
  let waiting = false
  let running = false
  const run = async () => {
    running = true
    await new Promise((resolve) => setTimeout(resolve, coalesceMs).unref())
    while (waiting) {
      const outcome = await callWithRetries(
        shown,
        () => {
          waiting = false
          return send(target, request)
        },
        {attempts, retryDelayMs, onFailedAttempt: failed},
      )
      if (outcome.ok) succeeded()
    }
    running = false
  }

  // The first ETag is the feed the server started with: remembered, not announced (as websub.ts).
  let seen: string | undefined
  let first = true
  return {
    observe(feedEtag) {
      const changed = !first && feedEtag !== undefined && feedEtag !== seen
      first = false
      seen = feedEtag
      if (!changed) return
      waiting = true
      if (!running)
        void run().catch((error: unknown) => {
          running = false
          log.error({err: error}, `announcing ${feedUrl} to ${shown} failed unexpectedly`)
        })
    },
    status: () => ({lastAnnouncedAt, lastError, lastErrorAt, consecutiveFailures, counts: {...counts}}),
  }
}
