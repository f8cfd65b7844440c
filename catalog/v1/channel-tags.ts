import {z} from 'zod'
import {fetchedUrl} from './contract.ts'
import {rruleProblem} from './rrule.ts'
import {optional} from './rows.ts'
import {mapLicense} from './license.ts'

// The channel tags an editor sets one by one in the podcast settings (podcast:txt, medium,
// updateFrequency, podroll, license; itunes:new-feed-url, block, complete). Each is read on its own: one
// that is not valid is left out of the feed and reported as a warning, never the channel with it.

/** The mediums of `podcast:medium` for a feed of items (the "L" list mediums hold no items). */
export const PODCAST_MEDIUMS = [
  'podcast',
  'music',
  'video',
  'film',
  'audiobook',
  'newsletter',
  'blog',
  'publisher',
  'course',
] as const

// Bounds from the namespace (txt 4000 characters, purpose and updateFrequency 128), and on how many
// entries one feed carries, so a settings document cannot grow the channel without end.
export const TXT_MAX_CHARACTERS = 4000
export const PURPOSE_MAX_CHARACTERS = 128
export const FREQUENCY_TEXT_MAX_CHARACTERS = 128
export const MAX_TXTS = 10
export const MAX_PODROLL = 50

const text = (max: number) => z.string().trim().min(1).max(max)
const isoDateOrDateTime = z.union([z.iso.date(), z.iso.datetime({offset: true})])
// An optional value the Studio may keep as "" once cleared: blank means not set.
const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? null : value)
const optionalText = <Schema extends z.ZodType>(schema: Schema) => z.preprocess(blankAsUnset, optional(schema))

const txtSchema = z.object({
  text: text(TXT_MAX_CHARACTERS),
  purpose: optionalText(text(PURPOSE_MAX_CHARACTERS)),
})
const frequencySchema = z.object({
  text: text(FREQUENCY_TEXT_MAX_CHARACTERS),
  rrule: optionalText(z.string().trim()),
  start: optionalText(isoDateOrDateTime),
  complete: optional(z.boolean()),
})
const remoteShowSchema = z
  .object({
    feed_guid: optionalText(z.uuid()),
    feed_url: optionalText(fetchedUrl),
    title: optionalText(text(PURPOSE_MAX_CHARACTERS)),
  })
  .refine((show) => show.feed_guid !== null || show.feed_url !== null, 'needs a feed guid or a feed URL')

/** What GROQ gives for the tags: each read on its own below, so any shape is taken here. */
export const channelTagsRowShape = {
  txts: z.unknown().optional(),
  medium: z.unknown().optional(),
  update_frequency: z.unknown().optional(),
  podroll: z.unknown().optional(),
  new_feed_url: z.unknown().optional(),
  block: z.unknown().optional(),
  complete: z.unknown().optional(),
  license: z.unknown().optional(),
}
type ChannelTagsRow = {[Key in keyof typeof channelTagsRowShape]?: unknown}

export const channelTagsSchema = z.object({
  txts: z.array(z.object({text: z.string(), purpose: z.string().nullable()})),
  medium: z.enum(PODCAST_MEDIUMS),
  updateFrequency: z
    .object({text: z.string(), rrule: z.string().nullable(), start: z.string().nullable(), complete: z.boolean()})
    .nullable(),
  /** Other shows; the feed derives a guid from the URL of one given by URL alone, as podcast:guid is derived. */
  podroll: z.array(
    z.object({feedGuid: z.string().nullable(), feedUrl: z.string().nullable(), title: z.string().nullable()}),
  ),
  newFeedUrl: z.string().nullable(),
  block: z.boolean(),
  complete: z.boolean(),
  /** The show's podcast:license (an episode's own overrides it in its item); null when none is set or it breaks the rule. */
  license: z.object({identifier: z.string(), url: z.string().nullable()}).nullable(),
})
type ChannelTags = z.infer<typeof channelTagsSchema>

const issuesOf = (field: string, error: z.ZodError) =>
  error.issues.map((issue) => `${[field, ...issue.path].join('.')}: ${issue.message}; left out of the feed`)

/** The tags that are valid, and a message for each part left out. */
export function mapChannelTags(row: ChannelTagsRow): {tags: ChannelTags; warnings: string[]} {
  const warnings: string[] = []
  /** The value parsed, or `fallback` (with the reason reported) when it is set but not valid. */
  const read = <Value>(field: string, schema: z.ZodType<Value>, value: unknown, fallback: Value): Value => {
    if (value === null || value === undefined) return fallback
    const parsed = schema.safeParse(value)
    if (parsed.success) return parsed.data
    warnings.push(...issuesOf(field, parsed.error))
    return fallback
  }
  const entries = (field: string, value: unknown, max: number): unknown[] => {
    if (value === null || value === undefined) return []
    if (!Array.isArray(value)) {
      warnings.push(`${field}: not a list; left out of the feed`)
      return []
    }
    if (value.length > max) warnings.push(`${field}: only the first ${max} are in the feed`)
    return value.slice(0, max)
  }
  const txts = entries('txts', row.txts, MAX_TXTS).flatMap((entry, index) => {
    const txt = read(`txts.${index}`, txtSchema, entry, null)
    return txt ? [txt] : []
  })
  const podroll = entries('podroll', row.podroll, MAX_PODROLL).flatMap((entry, index) => {
    const show = read(`podroll.${index}`, remoteShowSchema, entry, null)
    return show ? [{feedGuid: show.feed_guid, feedUrl: show.feed_url, title: show.title}] : []
  })
  const license = mapLicense(row.license, 'license')
  warnings.push(...license.warnings.map((warning) => `${warning}; left out of the feed`))
  return {
    tags: {
      txts,
      medium: read('medium', z.enum(PODCAST_MEDIUMS), row.medium, 'podcast'),
      updateFrequency: frequencyOf(read('update_frequency', frequencySchema, row.update_frequency, null), warnings),
      podroll,
      newFeedUrl: read('new_feed_url', fetchedUrl, row.new_feed_url, null),
      block: read('block', z.boolean(), row.block, false),
      complete: read('complete', z.boolean(), row.complete, false),
      license: license.license,
    },
    warnings,
  }
}

/** The schedule with its rule, or without it when the rule does not parse (the text still says it). */
function frequencyOf(
  frequency: z.infer<typeof frequencySchema> | null,
  warnings: string[],
): ChannelTags['updateFrequency'] {
  if (!frequency) return null
  const rule = frequency.rrule
  const problem = rule === null ? undefined : (rruleProblem(rule) ?? countWithoutStart(rule, frequency.start))
  if (problem) warnings.push(`update_frequency.rrule: ${problem}; left out of the feed`)
  return {
    text: frequency.text,
    rrule: problem ? null : rule,
    start: frequency.start ?? null,
    complete: frequency.complete ?? false,
  }
}

// The namespace requires dtstart with COUNT: a count has no meaning without a first date.
const countWithoutStart = (rule: string, start: string | null | undefined) =>
  /(?:^|;)COUNT=/.test(rule) && !start ? 'COUNT needs a start date' : undefined
