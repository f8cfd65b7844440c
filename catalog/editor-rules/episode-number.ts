import {episodeNumberFromSlug} from '../v1/episode.ts'

// The episode number is the slug's (`ep-12-…`) until an editor types one; a Sanity initialValue
// cannot see the slug, so the empty field shows what the server will serve in its place.

/** What an empty episode-number field is served as, for its placeholder. */
export function episodeNumberPlaceholder(slug: unknown): string {
  const number = typeof slug === 'string' ? episodeNumberFromSlug(slug) : null
  return number ? `${number} (מהכתובת)` : 'ללא מספר'
}

export const EPISODE_NUMBER_DESCRIPTION =
  'ריק: המספר שבכתובת (ep-12-… הוא פרק 12). 0 או ריק בלי מספר בכתובת: פרק בלי מספר, כמו טריילר או בונוס.'
export const EPISODE_NUMBER_NOT_WHOLE = 'מספר שלם, 0 ומעלה.'
