// WebSub (and Podcast Index's pubnotify): after a snapshot that changed the feed is served, the
// hubs are told so that podcast apps fetch it now rather than at their next poll. A ping carries
// no content, only "this URL changed"; a failed one is retried with backoff, then given up (the
// apps' own polling still finds the change). A hub's answer is read up to a few KB, within a
// deadline (service-call.ts), and retried as every such call is (service-retry.ts).

import type {Logger} from 'pino'
import {callService, type ServiceAnswer} from '../outbound/service-call.ts'
import {callWithRetries} from '../outbound/service-retry.ts'

export interface FeedPingSettings {
  /** The feed's public address: what the hubs are told changed. */
  feedUrl: string
  /** A WebSub hub (WEBSUB_HUB): `POST hub.mode=publish&hub.url=<feed>`. */
  hubUrl?: string | undefined
  /** Podcast Index's `hub/pubnotify` endpoint (PODCAST_INDEX_PUBNOTIFY_URL): `GET ?url=<feed>`. */
  pubnotifyUrl?: string | undefined
  /** Attempts per ping, the first included. */
  attempts?: number
  /** Delay before the first retry; it doubles for each further one. */
  retryDelayMs?: number
  log?: Pick<Logger, 'info' | 'warn'>
}

export interface FeedPinger {
  /** The served feed's ETag (undefined: no feed). The first one is remembered; each change is announced. */
  observe(feedEtag: string | undefined): void
}

export function createFeedPinger(settings: FeedPingSettings): FeedPinger {
  const {feedUrl, hubUrl, pubnotifyUrl, attempts = 4, retryDelayMs = 1000} = settings
  const pings: {target: string; request: () => Promise<ServiceAnswer>}[] = []
  if (hubUrl) {
    const body = new URLSearchParams({'hub.mode': 'publish', 'hub.url': feedUrl}).toString()
    pings.push({
      target: hubUrl,
      request: () =>
        callService(hubUrl, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body}),
    })
  }
  if (pubnotifyUrl) {
    const url = new URL(pubnotifyUrl)
    url.searchParams.set('url', feedUrl)
    pings.push({target: pubnotifyUrl, request: () => callService(url, {method: 'GET'})})
  }

  const attempt = async ({target, request}: (typeof pings)[number]) => {
    const outcome = await callWithRetries(target, request, {attempts, retryDelayMs})
    if (outcome.ok) settings.log?.info(`told ${target} that the feed changed`)
    else settings.log?.warn({err: outcome.error}, `could not tell ${target} that the feed changed`)
  }

  let announced: string | undefined
  let first = true
  return {
    observe(feedEtag) {
      if (first || feedEtag === undefined || feedEtag === announced) {
        first = false
        announced = feedEtag
        return
      }
      announced = feedEtag
      for (const ping of pings) void attempt(ping)
    },
  }
}
