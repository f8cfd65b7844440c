import {z} from 'zod'

const absoluteUrl = z
  .url({protocol: /^https?$/, error: 'must be an absolute http(s) URL'})
  .transform((url) => url.replace(/\/+$/, ''))

const environmentSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    PUBLIC_BASE_URL: absoluteUrl.optional(),
    SITE_URL: absoluteUrl.default('https://codetalks.example'),
    FEED_URL: absoluteUrl.optional(),
    CONTACT_EMAIL: z.email().optional(),
    API_NAME: z.string().min(1).default('Code Talks Catalog API'),
    DATASET_FILE: z.string().min(1).default('data/catalog.ndjson'),
    SANITY_PROJECT_ID: z.string().regex(/^[a-z0-9-]+$/, 'must be a Sanity project id').optional(),
    SANITY_DATASET: z.string().regex(/^[a-z0-9_-]+$/, 'must be a Sanity dataset name').default('production'),
    SANITY_API_VERSION: z.string().regex(/^v?\d{4}-\d{2}-\d{2}$/, 'must be a dated API version').default('2025-02-19'),
    SANITY_TOKEN: z.string().min(1).optional(),
    SANITY_API_HOST: absoluteUrl.optional(),
    SANITY_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
    RECONCILE_INTERVAL_SECONDS: z.coerce.number().int().min(0).default(300),
  })
  .transform((env) => {
    const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`
    return {
      port: env.PORT,
      host: env.HOST,
      publicBaseUrl,
      siteUrl: env.SITE_URL,
      feedUrl: env.FEED_URL ?? `${env.SITE_URL}/feed.xml`,
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
      // Image URLs point at Sanity's image CDN; the embedded sample names a placeholder project.
      images: {projectId: env.SANITY_PROJECT_ID ?? 'embedded', dataset: env.SANITY_DATASET},
    }
  })

export type Config = z.output<typeof environmentSchema>

/** Reads the configuration from environment variables; throws a readable error listing every bad one. */
export function loadConfig(environment: Record<string, string | undefined>): Config {
  // An empty variable (`SANITY_TOKEN=`) means "not set", as it does for most tools.
  const setVariables = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ''))
  const result = environmentSchema.safeParse(setVariables)
  if (!result.success) {
    throw new Error(`Invalid configuration:\n${z.prettifyError(result.error)}`)
  }
  return result.data
}
