import {z} from 'zod'

// The public v1 contract (spec: "Resources and their fields"). Responses are parsed by these
// schemas in tests, and the OpenAPI document is generated from them. Objects are strict so that
// drift in our own output is caught; clients are told to ignore unknown fields.

export const SLUG_PATTERN = /^[a-z0-9-]+$/
export const SLUG_MAX_LENGTH = 128

export const slugSchema = z.string().regex(SLUG_PATTERN).max(SLUG_MAX_LENGTH)
const uri = z.url({protocol: /^https?$/})
const isoDate = z.iso.date()
const languageTag = z.string().regex(/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/, 'must be a BCP 47 language tag')
const text = z.string().trim().min(1)
const englishTag = z.string().regex(/^[a-z0-9][a-z0-9 .+#-]*$/, 'must be an English lowercase tag')

export const personRefSchema = z.strictObject({slug: slugSchema, url: uri, api_url: uri})

export const episodeSchema = z.strictObject({
  slug: slugSchema,
  url: uri,
  api_url: uri,
  episode_number: z.number().int().positive().nullable(),
  title: text,
  description: text,
  language: languageTag,
  published_date: isoDate,
  tags: z.array(englishTag),
  guests: z.array(personRefSchema),
  audio_url: uri.nullable(),
  video_id: z.string().nullable(),
  video_url: uri.nullable(),
  podcast_directory_url: uri.nullable(),
  image_url: uri.nullable(),
  takeaways: z.array(text),
  faq: z.array(z.strictObject({question: text, answer: text})),
  feed_url: uri,
})

export const meetupSchema = z.strictObject({
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
  image_url: uri.nullable(),
})

export const voiceSchema = z.strictObject({
  slug: slugSchema,
  url: uri,
  api_url: uri,
  name: text,
  role: text,
  bio: text,
  language: languageTag,
  tech_stack: z.array(text),
  social_profile_url: uri.nullable(),
  image_url: uri.nullable(),
})

export const paginationSchema = z.strictObject({
  limit: z.number().int().positive(),
  count: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  next: uri.nullable(),
})

export const serviceIndexSchema = z.strictObject({
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
  endpoints: z.record(z.string(), z.string()),
})

export const listEnvelope = <Item extends z.ZodType>(item: Item) =>
  z.strictObject({data: z.array(item), pagination: paginationSchema})

export const itemEnvelope = <Item extends z.ZodType>(item: Item) => z.strictObject({data: item})

export const bulkSchema = z.strictObject({
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

export const problemSchema = z.strictObject({
  type: uri,
  title: text,
  status: z.number().int().min(400).max(599),
  detail: z.string().optional(),
  instance: z.string().optional(),
})

export type PersonRef = z.infer<typeof personRefSchema>
export type Episode = z.infer<typeof episodeSchema>
export type Meetup = z.infer<typeof meetupSchema>
export type Voice = z.infer<typeof voiceSchema>
export type Pagination = z.infer<typeof paginationSchema>
export type ServiceIndex = z.infer<typeof serviceIndexSchema>
export type Bulk = z.infer<typeof bulkSchema>
export type Problem = z.infer<typeof problemSchema>
