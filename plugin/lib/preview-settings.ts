import type {PreviewSettings} from './api-preview.ts'

export interface CatalogPluginOptions {
  /** The API's public origin, as the server's PUBLIC_BASE_URL: the "API" view shows URLs under it. */
  publicBaseUrl: string
  /** The public site whose pages are the canonical URLs (the server's SITE_URL). */
  siteUrl: string
  /** The podcast feed (the server's FEED_URL); defaults to `<publicBaseUrl>/feed.xml` as on the server. */
  feedUrl?: string
  /** `false`: the plugin adds no structure tool (the team wires `catalogStructure` into its own). */
  structure?: boolean
}

/** The feed's public address, as the server's FEED_URL defaults it. */
export function feedUrlOf(options: CatalogPluginOptions): string {
  const trim = (url: string) => url.replace(/\/+$/, '')
  return options.feedUrl ? trim(options.feedUrl) : `${trim(options.publicBaseUrl)}/feed.xml`
}

/** Settings for the "API" view, given the Studio's project and dataset (for image URLs, as the server makes them). */
export function previewSettings(
  options: CatalogPluginOptions,
  images: {projectId: string; dataset: string},
): PreviewSettings {
  const trim = (url: string) => url.replace(/\/+$/, '')
  return {
    publicBaseUrl: trim(options.publicBaseUrl),
    siteUrl: trim(options.siteUrl),
    feedUrl: feedUrlOf(options),
    images,
  }
}
