import {createImageUrlBuilder, type SanityImageSource} from '@sanity/image-url'

export const COLLECTION_NAMES = ['episodes', 'meetups', 'voices'] as const
export type CollectionName = (typeof COLLECTION_NAMES)[number]

/** The Sanity document type each collection is written as (Studio schemas, webhook payloads). */
export const COLLECTION_OF_DOCUMENT_TYPE: Readonly<Record<string, CollectionName>> = {episode: 'episodes', meetup: 'meetups', voice: 'voices'}

export function isCollectionName(value: string | undefined): value is CollectionName {
  return COLLECTION_NAMES.some((name) => name === value)
}

export interface LinkSettings {
  publicBaseUrl: string
  siteUrl: string
  images: {projectId: string; dataset: string}
}

/** Every absolute URL the v1 documents contain, built in one place. */
export interface Links {
  /** Canonical page on the public site: the URL to cite. */
  page(collection: CollectionName, slug: string): string
  /** This item's v1 API record. */
  api(collection: CollectionName, slug: string): string
  /** A v1 path, such as `episodes.json`. */
  apiPath(path: string): string
  /** Sanity image CDN URL, cropped to the given size and served as WebP. */
  image(source: SanityImageSource, width: number, height: number): string
  video(videoId: string): string
}

export function createLinks(settings: LinkSettings): Links {
  const images = createImageUrlBuilder(settings.images)
  const apiPath = (path: string) => `${settings.publicBaseUrl}/api/v1/${path}`
  return {
    page: (collection, slug) => `${settings.siteUrl}/${collection}/${slug}`,
    api: (collection, slug) => apiPath(`${collection}/${slug}.json`),
    apiPath,
    image: (source, width, height) => images.image(source).width(width).height(height).fit('crop').format('webp').url(),
    video: (videoId) => `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`,
  }
}
