import proxyAddr from 'proxy-addr'
import {z} from 'zod'
import {errorMessage} from './errors.ts'

const absoluteUrl = z
  .url({protocol: /^https?$/, error: 'must be an absolute http(s) URL'})
  .transform((url) => url.replace(/\/+$/, ''))

/** A date (`2027-01-31`) or date-time with offset, read as an instant. */
const httpDate = z.union([z.iso.date(), z.iso.datetime({offset: true})]).transform((value) => new Date(value))

/**
 * Express's `trust proxy` forms that name proxies: a hop count, or addresses, CIDR ranges and the
 * names loopback, linklocal and uniquelocal. "true" (trust every hop) is refused: it would let any
 * client choose its own rate-limit key with X-Forwarded-For.
 */
const trustProxySchema = z.string().transform((value, context) => {
  if (/^\d+$/.test(value)) return Number(value)
  const entries = value.split(',').map((entry) => entry.trim())
  try {
    proxyAddr.compile(entries)
  } catch (error) {
    context.addIssue({
      code: 'custom',
      message: errorMessage(error, 'not a list of proxy addresses'),
    })
    return z.NEVER
  }
  return entries
})

function addMonths(date: Date, months: number): Date {
  const later = new Date(date)
  later.setUTCMonth(later.getUTCMonth() + months)
  return later
}

const environmentObject = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: absoluteUrl.optional(),
  SITE_URL: absoluteUrl.default('https://codetalks.example'),
  FEED_URL: absoluteUrl.optional(),
  WEBSUB_HUB: absoluteUrl.optional(),
  PODCAST_INDEX_PUBNOTIFY_URL: absoluteUrl.optional(),
  // Kept as written (no trailing slash removed): it is the endpoint itself, `?url=` is added to it.
  PODPING_URL: z.url({protocol: /^https?$/, error: 'must be an absolute http(s) URL'}).optional(),
  // podping.cloud compares the whole Authorization header with the token it issued (its test token has `^`).
  PODPING_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{8,256}$/, 'must be 8 to 256 visible ASCII characters, no spaces')
    .optional(),
  CONTACT_EMAIL: z.email().optional(),
  API_NAME: z.string().min(1).default('Code Talks Catalog API'),
  DATASET_FILE: z.string().min(1).default('data/catalog.ndjson'),
  SANITY_PROJECT_ID: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'must be a Sanity project id')
    .optional(),
  SANITY_DATASET: z
    .string()
    .regex(/^[a-z0-9_-]+$/, 'must be a Sanity dataset name')
    .default('production'),
  SANITY_API_VERSION: z
    .string()
    .regex(/^v?\d{4}-\d{2}-\d{2}$/, 'must be a dated API version')
    .default('2025-02-19'),
  SANITY_TOKEN: z.string().min(1).optional(),
  SANITY_API_HOST: absoluteUrl.optional(),
  SANITY_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(300),
  RATE_LIMIT_QUOTA: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86400).default(60),
  TRUST_PROXY: trustProxySchema.optional(),
  DEPRECATION_DATE: httpDate.optional(),
  SUNSET_DATE: httpDate.optional(),
  SUCCESSOR_URL: absoluteUrl.optional(),
  REUSE_PORT: z.enum(['true', 'false']).default('false'),
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).default(10),
  REDIS_URL: z.url({protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL'}).optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\w.:-]{1,64}$/, 'must be up to 64 letters, digits, dots, colons, dashes or underscores')
    .default('catalog:'),
  MASS_DELETION_CONFIRM_SECONDS: z.coerce.number().int().min(0).default(60),
  EVENT_STREAMS_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  PAGE_CACHE_MEGABYTES: z.coerce.number().min(0.1).max(65536).default(32),
  VARIANT_CACHE_MEGABYTES: z.coerce.number().min(0.1).max(65536).default(64),
  SNAPSHOT_DIR: z.string().min(1).optional(),
  CDN_PURGE: z.enum(['varnish', 'fastly', 'cloudflare']).optional(),
  CDN_PURGE_URLS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .pipe(z.array(absoluteUrl).min(1, 'must list at least one URL'))
    .optional(),
  CDN_PURGE_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9._~+/=-]{16,256}$/, 'must be 16 to 256 letters, digits or ._~+/=-')
    .optional(),
  FASTLY_API_TOKEN: z.string().min(1).optional(),
  FASTLY_SERVICE_ID: z
    .string()
    .regex(/^[A-Za-z0-9]+$/, 'must be a Fastly service id')
    .optional(),
  FASTLY_SOFT_PURGE: z.enum(['true', 'false']).default('false'),
  FASTLY_API_URL: absoluteUrl.default('https://api.fastly.com'),
  CLOUDFLARE_API_TOKEN: z.string().min(1).optional(),
  CLOUDFLARE_ZONE_ID: z
    .string()
    .regex(/^[a-f0-9]{32}$/, 'must be a 32-character Cloudflare zone id')
    .optional(),
  CLOUDFLARE_API_URL: absoluteUrl.default('https://api.cloudflare.com/client/v4'),
  CDN_EDGE_MAX_AGE_SECONDS: z.coerce.number().int().min(1).max(31_536_000).default(86_400),
  PURGE_QUEUE_MAX_KEYS: z.coerce.number().int().min(16).max(1_000_000).default(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
})

/** Every environment variable the server reads (the README's configuration table lists exactly these). */
export const ENVIRONMENT_VARIABLES = Object.keys(environmentObject.shape)

const environmentSchema = environmentObject
  .superRefine((env, context) => {
    const lifecycle = [env.DEPRECATION_DATE, env.SUNSET_DATE, env.SUCCESSOR_URL]
    if (lifecycle.some((value) => value !== undefined) && lifecycle.some((value) => value === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['DEPRECATION_DATE'],
        message: 'DEPRECATION_DATE, SUNSET_DATE and SUCCESSOR_URL are set together or not at all',
      })
    }
    if (env.DEPRECATION_DATE && env.SUNSET_DATE && env.SUNSET_DATE < addMonths(env.DEPRECATION_DATE, 6)) {
      context.addIssue({
        code: 'custom',
        path: ['SUNSET_DATE'],
        message: "must be at least 6 months after DEPRECATION_DATE (the spec's minimum notice)",
      })
    }
  })
  // Runs even when other variables are bad (it reads only whether these are set), so one message
  // names every missing companion instead of the next start.
  .superRefine(
    (env, context) => {
      const requireFor = (provider: string, names: (keyof typeof env)[]) => {
        if (env.CDN_PURGE !== provider) return
        for (const name of names)
          if (env[name] === undefined)
            context.addIssue({code: 'custom', path: [name], message: `is required when CDN_PURGE=${provider}`})
      }
      requireFor('varnish', ['CDN_PURGE_URLS', 'CDN_PURGE_TOKEN'])
      requireFor('fastly', ['FASTLY_API_TOKEN', 'FASTLY_SERVICE_ID'])
      requireFor('cloudflare', ['CLOUDFLARE_API_TOKEN', 'CLOUDFLARE_ZONE_ID'])
      if ((env.PODPING_URL === undefined) !== (env.PODPING_TOKEN === undefined))
        context.addIssue({
          code: 'custom',
          path: [env.PODPING_URL === undefined ? 'PODPING_URL' : 'PODPING_TOKEN'],
          message: 'PODPING_URL and PODPING_TOKEN are set together or not at all',
        })
    },
    {when: () => true},
  )
  .transform((env) => {
    const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`
    return {
      port: env.PORT,
      host: env.HOST,
      publicBaseUrl,
      siteUrl: env.SITE_URL,
      // The feed this server serves, unless the team serves it at a public address of its own.
      feedUrl: env.FEED_URL ?? `${publicBaseUrl}/feed.xml`,
      /** A WebSub hub the feed names and pings after each snapshot that changed it. */
      websubHub: env.WEBSUB_HUB,
      /** Podcast Index's hub/pubnotify, told of each change to the feed like the WebSub hub. */
      pubnotifyUrl: env.PODCAST_INDEX_PUBNOTIFY_URL,
      /** Podping (podping.cloud), told of each change to the feed like the WebSub hub; none when unset. */
      podping: env.PODPING_URL && env.PODPING_TOKEN ? {url: env.PODPING_URL, token: env.PODPING_TOKEN} : undefined,
      contactEmail: env.CONTACT_EMAIL,
      apiName: env.API_NAME,
      webhookSecret: env.SANITY_WEBHOOK_SECRET,
      /** How often the whole catalog is re-read, to repair a lost webhook delivery; 0 turns it off. */
      reconcileIntervalSeconds: env.RECONCILE_INTERVAL_SECONDS,
      content: env.SANITY_PROJECT_ID
        ? {
            kind: 'sanity' as const,
            projectId: env.SANITY_PROJECT_ID,
            dataset: env.SANITY_DATASET,
            apiVersion: env.SANITY_API_VERSION,
            token: env.SANITY_TOKEN,
            apiHost: env.SANITY_API_HOST,
          }
        : {kind: 'embedded' as const, datasetFile: env.DATASET_FILE},
      rateLimit: {quota: env.RATE_LIMIT_QUOTA, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS},
      /** Which proxies may name the client in X-Forwarded-For; unset trusts none, so the socket address counts. */
      trustProxy: env.TRUST_PROXY,
      lifecycle:
        env.DEPRECATION_DATE && env.SUNSET_DATE && env.SUCCESSOR_URL
          ? {deprecation: env.DEPRECATION_DATE, sunset: env.SUNSET_DATE, successorUrl: env.SUCCESSOR_URL}
          : undefined,
      /** Lets a new process listen on the port before the old one stops: restarts without refused connections (Linux SO_REUSEPORT). */
      reusePort: env.REUSE_PORT === 'true',
      shutdownTimeoutSeconds: env.SHUTDOWN_TIMEOUT_SECONDS,
      /** Shared by the replicas: one rate-limit count per client, and webhook changes fanned out to all. */
      redis: env.REDIS_URL ? {url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX} : undefined,
      /** How long a re-read that drops most of the catalog waits for a second, agreeing read before it is served; 0 serves it at once. */
      massDeletionConfirmMs: env.MASS_DELETION_CONFIRM_SECONDS * 1000,
      /** `GET /api/v1/events` streams open at once; one client address holds a tenth of them at most. */
      eventStreamsMax: env.EVENT_STREAMS_MAX,
      /** Where the last fully read snapshot is saved, to be reused by a restart while the source is unchanged; none when unset. */
      snapshotDirectory: env.SNAPSHOT_DIR,
      caches: {
        /** Bytes of list pages (other than the default ones) kept across snapshots, compressed variants included. */
        pageCacheBytes: megabytes(env.PAGE_CACHE_MEGABYTES),
        /** Bytes of items' compressed variants, made on first request and kept across snapshots. */
        variantCacheBytes: megabytes(env.VARIANT_CACHE_MEGABYTES),
      },
      /** The CDN told which surrogate keys to purge when a new snapshot is served; none when CDN_PURGE is unset. */
      edge: edgeConfig(env),
      logLevel: env.LOG_LEVEL,
      // Image URLs point at Sanity's image CDN; the embedded sample names a placeholder project.
      images: {projectId: env.SANITY_PROJECT_ID ?? 'embedded', dataset: env.SANITY_DATASET},
    }
  })

type Environment = z.output<typeof environmentObject>

function edgeConfig(env: Environment) {
  const queue = {maxKeys: env.PURGE_QUEUE_MAX_KEYS, edgeMaxAgeSeconds: env.CDN_EDGE_MAX_AGE_SECONDS}
  if (env.CDN_PURGE === 'varnish' && env.CDN_PURGE_URLS && env.CDN_PURGE_TOKEN) {
    return {provider: 'varnish' as const, urls: env.CDN_PURGE_URLS, token: env.CDN_PURGE_TOKEN, queue}
  }
  if (env.CDN_PURGE === 'fastly' && env.FASTLY_API_TOKEN && env.FASTLY_SERVICE_ID) {
    return {
      provider: 'fastly' as const,
      apiUrl: env.FASTLY_API_URL,
      token: env.FASTLY_API_TOKEN,
      serviceId: env.FASTLY_SERVICE_ID,
      softPurge: env.FASTLY_SOFT_PURGE === 'true',
      queue,
    }
  }
  if (env.CDN_PURGE === 'cloudflare' && env.CLOUDFLARE_API_TOKEN && env.CLOUDFLARE_ZONE_ID) {
    return {
      provider: 'cloudflare' as const,
      apiUrl: env.CLOUDFLARE_API_URL,
      token: env.CLOUDFLARE_API_TOKEN,
      zoneId: env.CLOUDFLARE_ZONE_ID,
      queue,
    }
  }
  return undefined
}

/** Never echoed in a configuration error: a typo must not print a credential into the logs. */
const SECRET_VARIABLES = new Set([
  'SANITY_TOKEN',
  'SANITY_WEBHOOK_SECRET',
  'CDN_PURGE_TOKEN',
  'FASTLY_API_TOKEN',
  'CLOUDFLARE_API_TOKEN',
  'PODPING_TOKEN',
  'REDIS_URL',
])

const megabytes = (value: number) => Math.round(value * 1024 * 1024)

export type Config = z.output<typeof environmentSchema>
export type EdgeConfig = NonNullable<Config['edge']>

/** Reads the configuration from environment variables; throws a readable error listing every bad one. */
export function loadConfig(environment: Record<string, string | undefined>): Config {
  // An empty variable (`SANITY_TOKEN=`) means "not set", as it does for most tools.
  const setVariables = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''))
  const result = environmentSchema.safeParse(setVariables)
  if (!result.success) {
    // One line, naming each bad variable and the value it had.
    const problems = result.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '')
      const value = setVariables[name]
      if (value === undefined) return `${name}: ${issue.message}`
      // A secret is described by its length, never shown: this line goes to logs.
      return `${name}: ${issue.message} (got ${SECRET_VARIABLES.has(name) ? `a value of ${value.length} characters` : JSON.stringify(value)})`
    })
    throw new Error(`Invalid configuration: ${problems.join('; ')}`)
  }
  return result.data
}
