import {z} from 'zod'

// The public v1 contract (spec: "Resources and their fields"). Responses are parsed by these
// schemas in tests, and the OpenAPI document is generated from them. Objects are strict so that
// drift in our own output is caught; clients are told to ignore unknown fields.

export const SLUG_PATTERN = /^[a-z0-9-]+$/
export const SLUG_MAX_LENGTH = 128

export const slugSchema = z.string().regex(SLUG_PATTERN).max(SLUG_MAX_LENGTH)
const uri = z.url({protocol: /^https?$/})
/**
 * A URL a podcast app or directory fetches itself (audio, transcript, artwork, pictures, funding):
 * https only, written in printable ASCII, as Apple and the apps require. A space or a Hebrew letter
 * must be percent-encoded by whoever writes the URL; the server does not guess.
 */
export const FETCHED_URL_PATTERN = /^https:\/\/[\x21-\x7e]+$/
export const fetchedUrl = z
  .url({protocol: /^https$/, abort: true})
  .regex(FETCHED_URL_PATTERN, 'must be an https:// URL in printable ASCII (no spaces; percent-encode other letters)')
/** The audio and video types Apple Podcasts takes for an enclosure: MP3, M4A, MP4, MOV and M4V. */
export const ENCLOSURE_MIME_TYPES = [
  'audio/mpeg',
  'audio/x-m4a',
  'audio/mp4',
  'video/mp4',
  'video/quicktime',
  'video/x-m4v',
] as const
export type EnclosureMimeType = (typeof ENCLOSURE_MIME_TYPES)[number]
/**
 * Each enclosure type's format, as an editor knows it, the extension its files come with, and its
 * family as its bytes show it: MP3 frames, or the ISO base media file (MP4, M4A, MOV, M4V).
 */
export const ENCLOSURE_FORMATS: Readonly<
  Record<EnclosureMimeType, {readonly name: string; readonly extension: string; readonly family: 'mp3' | 'mp4'}>
> = {
  'audio/mpeg': {name: 'MP3', extension: 'mp3', family: 'mp3'},
  'audio/x-m4a': {name: 'M4A', extension: 'm4a', family: 'mp4'},
  'audio/mp4': {name: 'M4A', extension: 'm4a', family: 'mp4'},
  'video/mp4': {name: 'MP4', extension: 'mp4', family: 'mp4'},
  'video/quicktime': {name: 'MOV', extension: 'mov', family: 'mp4'},
  'video/x-m4v': {name: 'M4V', extension: 'm4v', family: 'mp4'},
}
/** The extensions enclosure files come with, each once: `mp3`, `m4a`, `mp4`, `mov`, `m4v`. */
export const ENCLOSURE_EXTENSIONS: readonly string[] = [
  ...new Set(Object.values(ENCLOSURE_FORMATS).map((format) => format.extension)),
]
export function isEnclosureMimeType(type: string): type is EnclosureMimeType {
  return Object.hasOwn(ENCLOSURE_FORMATS, type)
}
/** A MIME type as RFC 6838 names them: `type/subtype`, e.g. `audio/opus` or `video/mp4`. */
export const MIME_TYPE_PATTERN = /^[a-z]+\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i
/** The namespace recommends soundbites of 15 to 120 seconds (podcast-namespace docs/tags/soundbite.md). */
export const SOUNDBITE_MIN_SECONDS = 15
export const SOUNDBITE_MAX_SECONDS = 120
/** The namespace's bound on a tag's text (a soundbite's title, a season's name, a license): aggregators may cut more. */
export const NAMESPACE_TEXT_MAX_CHARACTERS = 128
/** The namespace: an alternate enclosure's title "should be limited to 32 characters for UX". */
export const ALTERNATE_TITLE_MAX_CHARACTERS = 32
const isoDate = z.iso.date()
export const LANGUAGE_TAG_PATTERN = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/
export const ENGLISH_TAG_PATTERN = /^[a-z0-9][a-z0-9 .+#-]*$/
const languageTag = z.string().regex(LANGUAGE_TAG_PATTERN, 'must be a BCP 47 language tag')
const text = z.string().trim().min(1)
const englishTag = z.string().regex(ENGLISH_TAG_PATTERN, 'must be an English lowercase tag')

const personRefSchema = z
  .strictObject({
    slug: slugSchema,
    url: uri.meta({description: 'Canonical profile page; cite this.'}),
    api_url: uri.meta({description: 'Resolve for the full Voice record (getVoice).'}),
  })
  .meta({id: 'PersonRef', description: 'A speaker appearing in an episode or giving a talk.'})

export const episodeSchema = z
  .strictObject({
    slug: slugSchema,
    url: uri,
    api_url: uri,
    episode_number: z.number().int().positive().nullable(),
    title: text,
    description: text,
    language: languageTag,
    published_date: isoDate.meta({description: 'The release day in Israel time (Asia/Jerusalem).'}),
    published_at: z.iso.datetime().meta({
      description:
        'The release time, RFC 3339 in UTC (`Z`). An episode is served from this instant on; a date-only release is 00:00 Israel time that day.',
    }),
    tags: z.array(englishTag),
    guests: z.array(personRefSchema),
    audio_url: fetchedUrl.nullable(),
    video_id: z.string().nullable(),
    video_url: uri.nullable(),
    podcast_directory_url: uri.nullable(),
    image_url: fetchedUrl.nullable(),
    takeaways: z.array(text),
    faq: z.array(z.strictObject({question: text, answer: text})),
    feed_url: uri,
    duration_seconds: z.number().int().positive().nullable().meta({description: 'Length of the audio in seconds.'}),
    season: z.number().int().positive().nullable(),
    season_name: z.string().min(1).max(NAMESPACE_TEXT_MAX_CHARACTERS).nullable().meta({
      description:
        "The season's name (podcast:season's `name`, at most 128 characters); null without one, or without a season number for it to name.",
    }),
    episode_type: z.enum(['full', 'trailer', 'bonus']).meta({
      description:
        "A published trailer with audio is also the feed channel's podcast:trailer (with its season, when set).",
    }),
    explicit: z.boolean(),
    audio: z
      .strictObject({
        url: fetchedUrl,
        length_bytes: z.number().int().positive(),
        mime_type: z.enum(ENCLOSURE_MIME_TYPES),
      })
      .nullable()
      .meta({
        description:
          "The audio file as the podcast feed encloses it: an https URL in printable ASCII and one of Apple Podcasts' types; null while it has no exact size and type.",
      }),
    transcript: z
      .strictObject({url: uri, mime_type: z.enum(['text/vtt', 'application/x-subrip'])})
      .nullable()
      .meta({
        description:
          'The transcript podcast apps fetch: the WebVTT one this API serves when the episode holds its transcript, else the external file an editor linked (https in printable ASCII; another link is left out and reported).',
      }),
    transcripts: z
      .array(
        z.strictObject({
          url: uri,
          mime_type: z.enum(['text/vtt', 'application/srt', 'application/x-subrip', 'application/json']),
        }),
      )
      .meta({
        description:
          'Every format of the transcript, as the feed lists them: WebVTT, SubRip and the Podcasting 2.0 JSON transcript when the episode holds its transcript (served at transcript.vtt, .srt and .json), else the one external file; empty without a transcript.',
      }),
    transcript_revision: z.string().nullable().meta({
      description:
        'Changes whenever what the served transcript says changes, so the item changes with it (its ETag, the change feed); null when the API serves no transcript of its own.',
    }),
    artwork_url: fetchedUrl.nullable().meta({
      description:
        'Square artwork of 1400-3000 px for podcast apps, JPEG (a PNG upload stays PNG) with the matching extension; null when the cover image is smaller.',
    }),
    chapters: z
      .array(
        z.strictObject({
          start_seconds: z.number().int().nonnegative(),
          title: text,
          url: fetchedUrl.nullable(),
          image_url: fetchedUrl.nullable(),
        }),
      )
      .min(1)
      .nullable()
      .meta({
        description:
          'Chapters, strictly ascending from 0 and within the duration; null when the episode has none (or its list breaks those rules, which is reported as a document problem).',
      }),
    soundbites: z
      .array(
        z.strictObject({
          start_seconds: z.number().nonnegative().meta({description: 'Seconds from the start of the audio.'}),
          duration_seconds: z
            .number()
            .min(SOUNDBITE_MIN_SECONDS)
            .max(SOUNDBITE_MAX_SECONDS)
            .meta({description: 'How long it plays: 15 to 120 seconds.'}),
          title: z
            .string()
            .min(1)
            .max(NAMESPACE_TEXT_MAX_CHARACTERS)
            .nullable()
            .meta({description: 'A title; null when apps show their own.'}),
        }),
      )
      .meta({
        description:
          "Highlights of the episode (podcast:soundbite), each 15 to 120 seconds and within the episode's duration, in the order the editor gave them; empty without any. One that breaks those rules is left out and reported as a document problem.",
      }),
    license: z
      .strictObject({
        identifier: z.string().min(1).max(NAMESPACE_TEXT_MAX_CHARACTERS).meta({
          description:
            "A lower-case license identifier: the Podcasting 2.0 list's or SPDX's (`cc-by-4.0`, `arr`), else a custom license's name.",
        }),
        url: fetchedUrl.nullable().meta({description: "The license's full text; always set for a custom license."}),
      })
      .nullable()
      .meta({
        description:
          "The episode's own license (podcast:license in its item), which overrides the show's license in the feed's channel; null when the episode has none (the show's applies) or its license breaks the rules (reported).",
      }),
    alternate_enclosures: z
      .array(
        z.strictObject({
          url: fetchedUrl,
          mime_type: z.string().regex(MIME_TYPE_PATTERN),
          length_bytes: z.number().int().positive(),
          bitrate: z.number().positive().nullable().meta({description: 'Average bitrate in bits per second.'}),
          height: z.number().int().positive().nullable().meta({description: 'Height in pixels, for a video.'}),
          title: z.string().min(1).max(ALTERNATE_TITLE_MAX_CHARACTERS).nullable(),
          default: z.boolean().meta({
            description:
              "The enclosure's own file at another address; at most one entry is. The feed lists the enclosure as a default podcast:alternateEnclosure with this entry's URL as a second podcast:source.",
          }),
        }),
      )
      .meta({
        description:
          'Other versions of the media (podcast:alternateEnclosure): a lower bitrate, a video. Empty without any; an entry that breaks the rules (https URL, MIME type, size in bytes, at most one default) is left out and reported.',
      }),
    chapters_url: uri.nullable().meta({
      description:
        'The chapters in the Podcasting 2.0 JSON chapters format (application/json+chapters), as the feed links them; null without chapters.',
    }),
  })
  .meta({id: 'Episode', description: 'A podcast episode. Content text is Hebrew; tags are English.'})

export const meetupSchema = z
  .strictObject({
    slug: slugSchema,
    url: uri,
    api_url: uri,
    title: text,
    abstract: text.nullable(),
    language: languageTag,
    published_date: isoDate,
    tags: z.array(englishTag),
    audience: z.array(text),
    speakers: z.array(personRefSchema),
    video_id: z.string().min(1),
    video_url: uri,
    image_url: fetchedUrl.nullable(),
  })
  .meta({id: 'Meetup', description: 'An internal meetup talk.'})

export const voiceSchema = z
  .strictObject({
    slug: slugSchema,
    url: uri,
    api_url: uri,
    name: text,
    role: text,
    bio: text,
    language: languageTag,
    tech_stack: z.array(text),
    social_profile_url: uri.nullable(),
    image_url: fetchedUrl.nullable(),
  })
  .meta({id: 'Voice', description: 'A speaker profile.'})

export const paginationSchema = z
  .strictObject({
    limit: z.number().int().positive().meta({description: 'Items requested for this page.'}),
    count: z.number().int().nonnegative().meta({description: 'Items returned in data.'}),
    total: z.number().int().nonnegative().meta({description: 'Items in the collection across all pages.'}),
    has_more: z.boolean(),
    next_cursor: z.string().nullable().meta({description: 'Opaque cursor for the cursor parameter; null at the end.'}),
    next: uri.nullable().meta({description: 'Absolute URL of the next page; null at the end.'}),
  })
  .meta({id: 'Pagination'})

export const serviceIndexSchema = z
  .strictObject({
    name: text,
    description: z.string().optional(),
    version: z.literal('v1'),
    language: languageTag.optional(),
    authentication: z.literal('none'),
    auth_documentation: uri.optional(),
    documentation: uri.optional(),
    openapi: uri.optional(),
    terms_of_service: uri.optional(),
    contact: z.email().optional(),
    feed_url: uri.optional(),
    endpoints: z
      .record(z.string(), z.string())
      .meta({description: 'operationId -> absolute URL template ({slug} where a slug goes, {q} a search query).'}),
  })
  .meta({id: 'ServiceIndex'})

export const listEnvelope = <Item extends z.ZodType>(item: Item) =>
  z.strictObject({data: z.array(item), pagination: paginationSchema})

export const itemEnvelope = <Item extends z.ZodType>(item: Item) => z.strictObject({data: item})

export const bulkSchema = z
  .strictObject({
    data: z.strictObject({
      episodes: z.array(episodeSchema),
      meetups: z.array(meetupSchema),
      voices: z.array(voiceSchema),
    }),
    counts: z.strictObject({
      episodes: z.number().int().nonnegative(),
      meetups: z.number().int().nonnegative(),
      voices: z.number().int().nonnegative(),
    }),
  })
  .meta({
    id: 'Everything',
    description: 'The three lists (episodes and meetups newest first, voices by Hebrew name) and their counts.',
  })

export const problemSchema = z
  .strictObject({
    type: uri,
    title: text,
    status: z.number().int().min(400).max(599),
    detail: z.string().optional(),
    instance: z.string().optional(),
  })
  .meta({id: 'Problem', description: 'RFC 9457 problem details.'})

export type PersonRef = z.infer<typeof personRefSchema>
export type Episode = z.infer<typeof episodeSchema>
export type Meetup = z.infer<typeof meetupSchema>
export type Voice = z.infer<typeof voiceSchema>
export type Pagination = z.infer<typeof paginationSchema>
export type ServiceIndex = z.infer<typeof serviceIndexSchema>
export type Problem = z.infer<typeof problemSchema>

/** A list page's `limit` when none is asked for, and the most a client may ask for. */
export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 500
