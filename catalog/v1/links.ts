import {createImageUrlBuilder, type SanityImageSource} from '@sanity/image-url'
import type {z} from 'zod'
import {imageAssetDimensions} from './artwork.ts'
import type {imageSourceSchema} from './rows.ts'
import {COLLECTION_OF_DOCUMENT_TYPE} from '../document-types.ts'

type ImageSource = z.infer<typeof imageSourceSchema>

export const COLLECTION_NAMES = ['episodes', 'meetups', 'voices'] as const
export type CollectionName = (typeof COLLECTION_NAMES)[number]

/** Where version 1 of the API is served; the sandbox serves the same documents under `/sandbox` inside it. */
export const API_V1_PREFIX = '/api/v1'

/** `episodes|meetups|voices`, for the regular expressions that read collection paths. */
export const COLLECTION_PATTERN = COLLECTION_NAMES.join('|')

// A Map, not an object: a document's `_type` comes from outside, and `constructor` or `__proto__`
// must not find a prototype member.
const COLLECTION_OF_TYPE: ReadonlyMap<string, CollectionName> = new Map(Object.entries(COLLECTION_OF_DOCUMENT_TYPE))

/** The collection a Sanity document type is served in (Studio schemas, webhook payloads); undefined for any other type. */
export function collectionOfDocumentType(type: string): CollectionName | undefined {
  return COLLECTION_OF_TYPE.get(type)
}

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
  /**
   * Sanity image CDN URL, cropped square to `side`: a PNG stays PNG, anything else is served as
   * JPEG (never WebP), and the URL's path ends in the served format's extension, as Apple requires.
   */
  artwork(source: ImageSource, side: number): string
  /** The podcast RSS feed on this origin. */
  feed: string
  video(videoId: string): string
}

export function createLinks(settings: LinkSettings): Links {
  const images = createImageUrlBuilder(settings.images)
  const apiPath = (path: string) => `${settings.publicBaseUrl}${API_V1_PREFIX}/${path}`
  return {
    page: (collection, slug) => `${settings.siteUrl}/${collection}/${slug}`,
    api: (collection, slug) => apiPath(`${collection}/${slug}.json`),
    apiPath,
    image: (source, width, height) => images.image(source).width(width).height(height).fit('crop').format('webp').url(),
    artwork: (source, side) =>
      artworkUrl(
        images.image(source).width(side).height(side).fit('crop'),
        imageAssetDimensions(source.asset._ref)?.format,
      ),
    feed: `${settings.publicBaseUrl}/feed.xml`,
    video: (videoId) => `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}`,
  }
}

type ImageUrl = ReturnType<ReturnType<typeof createImageUrlBuilder>['image']>

// The CDN names a URL after the upload (`…-2000x2000.webp`) whatever `fm` serves; a vanity file
// name after the asset's path gives the URL the served format's extension.
function artworkUrl(image: ImageUrl, format: string | undefined): string {
  if (format === 'png') return image.format('png').url()
  const jpeg = image.format('jpg')
  return format === 'jpg' ? jpeg.url() : jpeg.vanityName('artwork.jpg').url()
}
