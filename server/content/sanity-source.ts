import {createClient} from '@sanity/client'
import {FINGERPRINT_QUERY} from '../../catalog/queries.ts'
import type {ContentSource} from './source.ts'

export interface SanitySourceOptions {
  projectId: string
  dataset: string
  apiVersion: string
  token?: string | undefined
  /** A custom API host (a proxy, or a local stand-in in tests) is addressed by path, not by project subdomain. */
  apiHost?: string | undefined
}

/** Runs GROQ against the Sanity Content Lake: published perspective, uncached API (the CDN can lag a publish). */
export function createSanitySource(options: SanitySourceOptions): ContentSource {
  const client = createClient({
    projectId: options.projectId,
    dataset: options.dataset,
    apiVersion: options.apiVersion,
    useCdn: false,
    perspective: 'published',
    timeout: 30_000,
    ...(options.token ? {token: options.token} : {}),
    // Deprecated as a setting for apps; it is still how a client reaches a host other than Sanity's (a stand-in).
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    ...(options.apiHost ? {apiHost: options.apiHost, useProjectHostname: false} : {}),
  })
  return {
    description: `Sanity project ${options.projectId}, dataset ${options.dataset}`,
    fetch: (query, params = {}) => client.fetch<unknown>(query, params),
    fingerprint: async () => JSON.stringify(await client.fetch<unknown>(FINGERPRINT_QUERY)),
    // One response holding a large catalog would be transferred, held and parsed at once.
    readsInPages: true,
  }
}
