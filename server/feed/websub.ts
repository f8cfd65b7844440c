// WebSub (and Podcast Index's pubnotify): after a snapshot that changed the feed is served, the
// hubs are told so that podcast apps fetch it now rather than at their next poll. A ping carries
// no content, only "this URL changed"; a failed one is retried with backoff, then given up (the
// apps' own polling still finds the change).

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
  onPinged?: (target: string) => void
  onGaveUp?: (target: string, error: unknown) => void
}

export interface FeedPinger {
  /** The served feed's ETag (undefined: no feed). The first one is remembered; each change is announced. */
  observe(feedEtag: string | undefined): void
}

const PING_TIMEOUT_MS = 10_000

export function createFeedPinger(settings: FeedPingSettings): FeedPinger {
  const {feedUrl, hubUrl, pubnotifyUrl, attempts = 4, retryDelayMs = 1000} = settings
  const pings: {target: string; request: () => Promise<Response>}[] = []
  if (hubUrl) {
    pings.push({
      target: hubUrl,
      request: () => fetch(hubUrl, {method: 'POST', body: new URLSearchParams({'hub.mode': 'publish', 'hub.url': feedUrl}), signal: AbortSignal.timeout(PING_TIMEOUT_MS)}),
    })
  }
  if (pubnotifyUrl) {
    const url = new URL(pubnotifyUrl)
    url.searchParams.set('url', feedUrl)
    pings.push({target: pubnotifyUrl, request: () => fetch(url, {signal: AbortSignal.timeout(PING_TIMEOUT_MS)})})
  }

  const attempt = async ({target, request}: (typeof pings)[number]) => {
    let lastError: unknown
    for (let tried = 0; tried < attempts; tried++) {
      if (tried > 0) await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (tried - 1)).unref())
      try {
        const response = await request()
        await response.arrayBuffer()
        if (response.ok) return settings.onPinged?.(target)
        lastError = new Error(`${target} answered ${response.status}`)
      } catch (error) {
        lastError = error
      }
    }
    settings.onGaveUp?.(target, lastError)
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
