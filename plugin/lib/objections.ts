import {z} from 'zod'
import type {CollectionName} from '../../catalog/v1/links.ts'

const hebrew = z.locales.he().localeError

/** zod's Hebrew wording, with a missing value said as an editor would say it. */
export const hebrewErrors: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input == null ? 'חסר: יש למלא את השדה' : hebrew(issue)

// The API's field names where they differ from the Studio's (the GROQ projections rename them).
const STUDIO_FIELDS: Record<CollectionName, Record<string, string>> = {
  episodes: {
    published_date: 'publishedAt',
    episode_number: 'episodeNumber',
    published_at: 'publishedAt',
    audio_url: 'audioUrl',
    audio: 'audioFile',
    duration_seconds: 'duration',
    episode_type: 'episodeType',
    season_name: 'seasonName',
    alternate_enclosures: 'alternateEnclosures',
    transcript: 'transcriptFile',
    transcript_cues: 'transcript',
    video_id: 'videoId',
    podcast_directory_url: 'podcastDirectoryUrl',
    image: 'coverImage',
  },
  meetups: {published_date: 'talkDate', video_id: 'videoId', image: 'thumbnail'},
  voices: {tech_stack: 'techStack', social_profile_url: 'socialProfileUrl', image: 'headshot'},
}

/** The Studio field an API field comes from. */
export function studioFieldOf(collection: CollectionName, apiField: string): string {
  return STUDIO_FIELDS[collection][apiField] ?? apiField
}

/**
 * One objection as an editor reads it: the field's title in the Studio (and which item, in a
 * list), then what is wrong. `titleOf` gives a Studio field's title.
 */
export function describeObjection(
  collection: CollectionName,
  issue: z.core.$ZodIssue,
  titleOf: (studioField: string) => string | undefined,
): string {
  const [field, ...rest] = issue.path
  if (typeof field !== 'string') return issue.message
  const title = titleOf(studioFieldOf(collection, field)) ?? field
  const item = rest.find((segment) => typeof segment === 'number')
  return `${title}${item === undefined ? '' : ` (פריט ${item + 1})`}: ${issue.message}`
}
