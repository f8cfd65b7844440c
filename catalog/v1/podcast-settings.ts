import {z} from 'zod'
import {fetchedUrl} from './contract.ts'
import {podcastArtworkSide} from './artwork.ts'
import type {Links} from './links.ts'
import {imageSourceSchema, optional, personRowSchema} from './rows.ts'
import {isAppleCategory, parseCategoryChoice} from './apple-categories.ts'
import {channelTagsRowShape, channelTagsSchema, mapChannelTags} from './channel-tags.ts'

// The podcast settings singleton (PODCAST_SETTINGS_QUERY's row) as the feed's channel uses it.
// Apple's rules that can be checked without fetching anything are checked here, so a feed is
// never served that Apple would refuse for its channel.

// TextEncoder rather than Buffer: the Studio's feed preview runs this module in the browser.
const utf8 = new TextEncoder()
const utf8Length = (text: string) => utf8.encode(text).length
const text = z.string().trim().min(1)

const podcastSettingsRowSchema = z.object({
  _id: z.string(),
  _updatedAt: z.iso.datetime({offset: true}),
  title: text,
  description: text.refine((value) => utf8Length(value) <= 4000, 'must be at most 4000 bytes (Apple Podcasts)'),
  author: text,
  owner_name: text,
  owner_email: z.email(),
  artwork: imageSourceSchema,
  categories: z
    .array(z.string().transform(parseCategoryChoice).refine(isAppleCategory, "is not in Apple Podcasts' category list"))
    .min(1),
  explicit: optional(z.boolean()),
  show_type: optional(z.enum(['episodic', 'serial'])),
  copyright: text,
  hosts: z.array(personRowSchema),
  funding_url: optional(fetchedUrl),
  funding_text: optional(z.string()),
  locked: optional(z.boolean()),
  guid: optional(z.uuid()),
  ...channelTagsRowShape,
})

/** The show as `<channel>` describes it; hosts are voice slugs, resolved against the served voices when the feed is made. */
const podcastChannelSchema = z.object({
  title: z.string(),
  description: z.string(),
  author: z.string(),
  owner: z.object({name: z.string(), email: z.string()}),
  artworkUrl: z.string(),
  categories: z.array(z.object({category: z.string(), subcategory: z.string().nullable()})),
  explicit: z.boolean(),
  type: z.enum(['episodic', 'serial']),
  copyright: z.string(),
  hostSlugs: z.array(z.string()),
  funding: z.object({url: z.string(), text: z.string()}).nullable(),
  locked: z.boolean(),
  /** The stored podcast:guid; null until the Studio has stored one (the feed then derives it from its URL). */
  guid: z.string().nullable(),
  updatedAt: z.string(),
  /** The tags set one by one (podcast:txt, itunes:block, …): each valid one, the others left out. */
  tags: channelTagsSchema,
})
export type PodcastChannel = Readonly<z.infer<typeof podcastChannelSchema>>

/** The settings singleton's one document id (schemas/podcast-settings.ts gives the Studio the same). */
export const PODCAST_SETTINGS_ID = 'podcastSettings'

/** Why a channel is served with no settings document in the source: the last good one is held. */
export const SETTINGS_DELETED =
  'the podcast settings document was deleted or unpublished: the feed serves the last good channel (its items still follow the episodes) until the settings are published again. To leave the podcast directories, publish them with itunes:block ("הסתרה מ-Apple Podcasts") or itunes:complete ("התוכנית הסתיימה") checked rather than deleting them'

/** What to publish when no settings document was ever served: without one the feed has no channel. */
export const SETTINGS_MISSING =
  'there is no podcast settings document, so there is no feed: publish one (Sanity type podcastSettings, document id "podcastSettings", "הגדרות הפודקאסט" in the Studio) with title, description (at most 4000 bytes), author, owner name and email, artwork (square JPEG or PNG, 1400 to 3000 px), categories (at least one from Apple Podcasts\' list) and copyright'

/** What the settings document gives the feed: its channel, or why there is none. Saved with a snapshot as it is. */
export const mappedSettingsSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    channel: podcastChannelSchema,
    /** Parts left out of the channel (a tag that is not valid), each with why. */
    warnings: z.array(z.string()),
  }),
  z.object({ok: z.literal(false), messages: z.array(z.string())}),
])
export type MappedSettings = z.infer<typeof mappedSettingsSchema>

export function mapPodcastSettings(raw: unknown, links: Links): MappedSettings {
  const row = podcastSettingsRowSchema.safeParse(raw)
  if (!row.success)
    return {ok: false, messages: row.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)}
  const settings = row.data
  const tags = mapChannelTags(settings)
  const side = podcastArtworkSide(settings.artwork)
  if (!side)
    return {ok: false, messages: ['artwork: must be square JPEG or PNG artwork of at least 1400 px (Apple Podcasts)']}
  return {
    ok: true,
    warnings: tags.warnings,
    channel: Object.freeze({
      title: settings.title,
      description: settings.description,
      author: settings.author,
      owner: {name: settings.owner_name, email: settings.owner_email},
      artworkUrl: links.artwork(settings.artwork, side),
      categories: settings.categories,
      explicit: settings.explicit ?? false,
      type: settings.show_type ?? 'episodic',
      copyright: settings.copyright,
      hostSlugs: settings.hosts.map((host) => host.slug),
      funding: settings.funding_url
        ? {url: settings.funding_url, text: settings.funding_text ?? settings.funding_url}
        : null,
      locked: settings.locked ?? true,
      guid: settings.guid,
      updatedAt: [settings._updatedAt, ...settings.hosts.map((host) => host._updatedAt)].reduce((latest, next) =>
        Date.parse(next) > Date.parse(latest) ? next : latest,
      ),
      tags: tags.tags,
    }),
  }
}
