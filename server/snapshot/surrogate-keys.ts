import type {CollectionName} from '../../catalog/v1/links.ts'

export type EdgeProvider = 'varnish' | 'fastly' | 'cloudflare'

/** Carried by every cacheable response: purging it empties the edge of this origin's documents. */
export const GLOBAL_KEY = 'catalog'
export const BULK_KEY = 'all'
export const INDEX_KEY = 'index'
/** Every search answer (`/api/v1/search.json?q=…`): any content change may change any of them. */
export const SEARCH_KEY = 'search'
/** An item's key names it whether it was read under `/api/v1` or the sandbox: both serve the same bytes. */
export const itemKey = (collection: CollectionName, slug: string) => `${collection}/${slug}`
/** Every page of a list, cursor pages included, shares its collection's key. */
export const listKey = (collection: CollectionName) => collection
export const siteKey = (path: string) => `site${path}`

interface ProviderLimits {
  /** The response header the provider reads keys from. */
  header: string
  separator: string
  maxHeaderBytes: number
  maxKeyBytes: number
}

// Fastly: 16 KB header, 1 KB per key. Cloudflare: 16 KB of Cache-Tag in all. Varnish: the header must
// fit http_resp_hdr_len (8 KB by default). Akamai's 128 tags of 128 characters is not a provider here.
const PROVIDER_LIMITS: Record<EdgeProvider, ProviderLimits> = {
  varnish: {
    header: 'xkey',
    separator: ' ',
    maxHeaderBytes: 8192,
    maxKeyBytes: 1024,
  },
  fastly: {
    header: 'Surrogate-Key',
    separator: ' ',
    maxHeaderBytes: 16384,
    maxKeyBytes: 1024,
  },
  cloudflare: {
    header: 'Cache-Tag',
    separator: ',',
    maxHeaderBytes: 16384,
    maxKeyBytes: 1024,
  },
}

/** The headers that set the edge's TTL: RFC 9213's for any CDN, and Fastly's own. Browsers keep Cache-Control's max-age=60. */
export const CDN_CACHE_CONTROL = 'CDN-Cache-Control'
export const SURROGATE_CONTROL = 'Surrogate-Control'
const edgeCacheControl = (maxAgeSeconds: number) => `max-age=${maxAgeSeconds}, stale-if-error=86400`

/** The edge headers a representation is built with, and the key a purge must name to reach it. */
export interface SurrogateKeying {
  readonly header: string
  /** `key` if the provider accepts it beside the global key, else `coarser` (counted in `fallbacks`). */
  effectiveKey(key: string, coarser: string): string
  headersFor(key: string, coarser: string): Readonly<Record<string, string>>
  /** How many representations were given a coarser key than their own. */
  readonly fallbacks: number
  /** The longest purge header the provider should be sent, in bytes. */
  readonly maxHeaderBytes: number
  readonly separator: string
}

export interface KeyingOptions extends Partial<Pick<ProviderLimits, 'maxHeaderBytes' | 'maxKeyBytes'>> {
  /** How long the CDN keeps a response it is not told to purge (CDN_EDGE_MAX_AGE_SECONDS). */
  edgeMaxAgeSeconds?: number
}

export function createSurrogateKeying(provider: EdgeProvider, options: KeyingOptions = {}): SurrogateKeying {
  const {header, separator, ...defaults} = PROVIDER_LIMITS[provider]
  const {maxHeaderBytes, maxKeyBytes, edgeMaxAgeSeconds = 86_400} = {...defaults, ...options}
  const edgeTtl = edgeCacheControl(edgeMaxAgeSeconds)
  let fallbacks = 0
  const fits = (key: string) =>
    Buffer.byteLength(key) <= maxKeyBytes && Buffer.byteLength(`${GLOBAL_KEY}${separator}${key}`) <= maxHeaderBytes
  const effectiveKey = (key: string, coarser: string) => (fits(key) ? key : coarser)
  return {
    header,
    separator,
    maxHeaderBytes,
    effectiveKey,
    headersFor(key, coarser) {
      const chosen = effectiveKey(key, coarser)
      if (chosen !== key) fallbacks += 1
      return Object.freeze({
        [header]: `${GLOBAL_KEY}${separator}${chosen}`,
        [CDN_CACHE_CONTROL]: edgeTtl,
        [SURROGATE_CONTROL]: edgeTtl,
      })
    },
    get fallbacks() {
      return fallbacks
    },
  }
}
