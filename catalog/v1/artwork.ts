import type {z} from 'zod'
import type {imageSourceSchema} from './rows.ts'

// Podcast apps want square JPEG or PNG artwork of 1400 to 3000 px (Apple Podcasts' rules). Sanity's
// image CDN crops and converts; the asset id tells the original's size without fetching it.

export const ARTWORK_MIN_PIXELS = 1400
const ARTWORK_MAX_PIXELS = 3000

/** Width, height and format of a Sanity image asset, which its id spells: `image-<hash>-<w>x<h>-<format>`. */
export function imageAssetDimensions(assetId: string): {width: number; height: number; format: string} | undefined {
  const match = /^image-[A-Za-z0-9]+-(\d+)x(\d+)-([a-z]+)$/.exec(assetId)
  if (!match?.[1] || !match[2] || !match[3]) return undefined
  return {width: Number(match[1]), height: Number(match[2]), format: match[3]}
}

/**
 * The side of the square artwork an image can give after its crop, capped at 3000 px; undefined
 * when it is smaller than Apple's 1400 px (the CDN would have to upscale) or its size is unknown.
 */
export function podcastArtworkSide(source: z.infer<typeof imageSourceSchema>): number | undefined {
  const size = imageAssetDimensions(source.asset._ref)
  if (!size) return undefined
  const crop = source.crop ?? {top: 0, bottom: 0, left: 0, right: 0}
  const side = Math.floor(
    Math.min(size.width * (1 - crop.left - crop.right), size.height * (1 - crop.top - crop.bottom)),
  )
  return side >= ARTWORK_MIN_PIXELS ? Math.min(side, ARTWORK_MAX_PIXELS) : undefined
}
