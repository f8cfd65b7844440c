import {z} from 'zod'
import {ENCLOSURE_MIME_TYPES, episodeSchema, FETCHED_URL_PATTERN, type Episode} from './contract.ts'
import {documentRowSchema, optional, personRowSchema} from './rows.ts'
import {toPersonRefs, type Mapped, type MappingContext} from './person-ref.ts'
import {podcastArtworkSide} from './artwork.ts'
import type {Links} from './links.ts'
import {chaptersPath, mapChapters} from './chapters.ts'
import {releaseFieldsOf, releaseTimeRowSchema} from './release-time.ts'
import {mapSoundbites} from './soundbites.ts'
import {mapLicense} from './license.ts'
import {mapAlternateEnclosures} from './alternate-enclosures.ts'
import {mapSeasonName} from './season.ts'
import {
  checkedTranscript,
  describeTranscriptFaults,
  TRANSCRIPT_FORMATS,
  transcriptBytes,
  transcriptPath,
  transcriptRevision,
} from './transcript.ts'

export const episodeRowSchema = documentRowSchema.extend({
  ...episodeSchema.pick({
    title: true,
    description: true,
    language: true,
    tags: true,
    takeaways: true,
    faq: true,
  }).shape,
  episode_number: optional(z.number()),
  published_at: releaseTimeRowSchema,
  guests: z.array(personRowSchema),
  audio_url: optional(z.string()),
  audio: optional(
    z.object({
      url: z.string(),
      length: optional(z.number()),
      type: optional(z.string().pipe(z.enum(ENCLOSURE_MIME_TYPES))),
    }),
  ),
  duration_seconds: optional(z.number()),
  season: optional(z.number()),
  season_name: optional(z.string()),
  episode_type: optional(z.enum(['full', 'trailer', 'bonus'])),
  explicit: optional(z.boolean()),
  transcript: optional(z.object({url: z.string(), name: optional(z.string())})),
  video_id: optional(z.string()),
  podcast_directory_url: optional(z.string()),
  // Checked chapter by chapter in the mapper: a broken chapter leaves out the chapters, not the episode.
  chapters: z.unknown().optional(),
  // Checked cue by cue in the mapper, the same way.
  transcript_cues: z.unknown().optional(),
  // Each checked on its own in the mapper (a soundbite, an alternate enclosure, the license): one
  // that breaks a rule is left out with a warning, never the episode.
  soundbites: z.unknown().optional(),
  license: z.unknown().optional(),
  alternate_enclosures: z.unknown().optional(),
})

export type EpisodeRow = z.infer<typeof episodeRowSchema>

/** `ep-12-title`, `episode-12-title` and `12-title` are episode 12; other slugs are unnumbered. */
export function episodeNumberFromSlug(slug: string): number | null {
  const match = /^(?:(?:ep|episode)-)?(\d+)(?=-|$)/.exec(slug)
  return match?.[1] ? Number.parseInt(match[1], 10) : null
}

const NOT_A_NUMBER = 'episode_number: not a whole number of 0 or more, so the number in the slug is served'

/**
 * The number as entered, else the slug's: 0 (a trailer's, say, or `ep-0-trailer`) and none alike
 * mean unnumbered, which Apple and the API both write as no number at all. A number that is not a
 * whole number of 0 or more is left out (with a warning), never the episode.
 */
function episodeNumberOf(entered: number | null, slug: string): {number: number | null; warnings: string[]} {
  const valid = entered === null || (Number.isSafeInteger(entered) && entered >= 0)
  const number = valid ? (entered ?? episodeNumberFromSlug(slug)) : episodeNumberFromSlug(slug)
  return {number: number === 0 ? null : number, warnings: valid ? [] : [NOT_A_NUMBER]}
}

/** A linked transcript's type, from its file name: WebVTT or SubRip, the two formats podcast apps read. */
function linkedTranscript(url: string, name: string): Episode['transcript'] {
  const extension = /\.(vtt|srt)(?:[?#]|$)/i.exec(name)?.[1]?.toLowerCase()
  if (extension === 'vtt') return {url, mime_type: 'text/vtt'}
  if (extension === 'srt') return {url, mime_type: 'application/x-subrip'}
  return null
}

type TranscriptFields = Pick<Episode, 'transcript' | 'transcripts' | 'transcript_revision'>

/**
 * The transcript the episode holds, served in three formats, else the file an editor linked. Cues
 * that break a rule leave out the held transcript (reported), never the episode: the link, if any, stays.
 */
function transcriptOf(
  row: EpisodeRow,
  links: Links,
): {fields: TranscriptFields; bytes: Uint8Array | undefined; warnings: string[]} {
  const held = heldTranscript(row.transcript_cues, row.duration_seconds)
  if (held.bytes) {
    const transcripts = TRANSCRIPT_FORMATS.map((format) => ({
      url: links.apiPath(transcriptPath(row.slug, format.extension)),
      mime_type: format.mimeType,
    }))
    const transcript = {url: links.apiPath(transcriptPath(row.slug, 'vtt')), mime_type: 'text/vtt' as const}
    const fields = {transcript, transcripts, transcript_revision: transcriptRevision(held.bytes)}
    return {fields, bytes: held.bytes, warnings: []}
  }
  const linked = linkedTranscriptOf(row)
  const fields = {
    transcript: linked.transcript,
    transcripts: linked.transcript ? [linked.transcript] : [],
    transcript_revision: null,
  }
  return {fields, bytes: undefined, warnings: [...linked.warnings, ...held.warnings]}
}

/** The cues as the catalog holds them, when there are any and they break no rule. */
function heldTranscript(raw: unknown, duration: number | null): {bytes?: Uint8Array; warnings: string[]} {
  if (raw === null || raw === undefined || (Array.isArray(raw) && raw.length === 0)) return {warnings: []}
  if (!Array.isArray(raw)) return {warnings: ['transcript: left out: not a list']}
  const checked = checkedTranscript(raw, duration)
  return checked.ok
    ? {bytes: transcriptBytes(checked.cues), warnings: []}
    : {warnings: [`transcript: left out: ${describeTranscriptFaults(checked.faults)}`]}
}

/** The file an editor linked, when podcast apps can fetch it (https in printable ASCII). */
function linkedTranscriptOf(row: EpisodeRow): {transcript: Episode['transcript']; warnings: string[]} {
  const url = row.transcript?.url
  if (url === undefined) return {transcript: null, warnings: []}
  if (!FETCHED_URL_PATTERN.test(url))
    return {
      transcript: null,
      warnings: [`transcript: left out "${url}", not an https URL in printable ASCII that podcast apps can fetch`],
    }
  return {transcript: linkedTranscript(url, row.transcript?.name ?? url), warnings: []}
}

function artworkUrlOf(image: EpisodeRow['image'], links: Links): string | null {
  const side = image ? podcastArtworkSide(image) : undefined
  return image && side ? links.artwork(image, side) : null
}

export function mapEpisode(row: EpisodeRow, context: MappingContext): Mapped<Episode> {
  const {links} = context
  const guests = toPersonRefs('guests', row.guests, context, row._updatedAt)
  const episodeNumber = episodeNumberOf(row.episode_number, row.slug)
  const chapters = mapChapters(row.chapters, row.duration_seconds, links)
  const transcript = transcriptOf(row, links)
  const seasonName = mapSeasonName(row.season_name, row.season)
  const soundbites = mapSoundbites(row.soundbites, row.duration_seconds)
  const license = mapLicense(row.license, 'license')
  const alternates = mapAlternateEnclosures(row.alternate_enclosures)
  return {
    value: {
      slug: row.slug,
      url: links.page('episodes', row.slug),
      api_url: links.api('episodes', row.slug),
      episode_number: episodeNumber.number,
      title: row.title,
      description: row.description,
      language: row.language,
      ...releaseFieldsOf(row.published_at),
      tags: row.tags,
      guests: guests.refs,
      audio_url: row.audio_url,
      video_id: row.video_id,
      video_url: row.video_id === null ? null : links.video(row.video_id),
      podcast_directory_url: row.podcast_directory_url,
      image_url: row.image && links.image(row.image, 800, 800),
      takeaways: row.takeaways,
      faq: row.faq,
      feed_url: context.feedUrl,
      duration_seconds: row.duration_seconds,
      season: row.season,
      season_name: seasonName.seasonName,
      episode_type: row.episode_type ?? 'full',
      explicit: row.explicit ?? false,
      audio:
        row.audio?.length && row.audio.type
          ? {url: row.audio.url, length_bytes: row.audio.length, mime_type: row.audio.type}
          : null,
      ...transcript.fields,
      artwork_url: artworkUrlOf(row.image, links),
      chapters: chapters.chapters,
      soundbites: soundbites.soundbites,
      license: license.license,
      alternate_enclosures: alternates.alternates,
      chapters_url: chapters.chapters && links.apiPath(chaptersPath(row.slug)),
    },
    updatedAt: guests.updatedAt,
    warnings: [
      ...guests.warnings,
      ...episodeNumber.warnings,
      ...chapters.warnings,
      ...transcript.warnings,
      ...seasonName.warnings,
      ...soundbites.warnings,
      ...license.warnings,
      ...alternates.warnings,
    ],
    ...(transcript.bytes ? {transcript: transcript.bytes} : {}),
  }
}
