import {z} from 'zod'
import {mapOneDocument, type CatalogEntry} from '../../catalog/v1/document-mapping.ts'
import type {Episode, Meetup, Voice} from '../../catalog/v1/contract.ts'
import {createLinks} from '../../catalog/v1/links.ts'
import {feedItemOf} from '../../catalog/feed/feed-item.ts'
import {itemXml} from '../../catalog/feed/item-xml.ts'
import {mapPodcastSettings} from '../../catalog/v1/podcast-settings.ts'
import type {PreviewSettings} from './api-preview.ts'
import {scheduledNotice} from '../../catalog/editor-rules/release-time.ts'

export type FeedPreview =
  | {status: 'served'; xml: string}
  | {status: 'not-served'; reasons: string[]}
  /** A valid episode whose release time is ahead: not in the feed until then. */
  | {status: 'scheduled'; notice: string}

const slugsSchema = z.array(z.looseObject({slug: z.string()}))
const linkedSchema = z.looseObject({guests: slugsSchema.optional(), hosts: slugsSchema.optional()})

/** The voice slugs a preview needs: the episode's guests and the settings' hosts. */
export function voiceSlugsFor(episodeRow: unknown, settingsRow: unknown): string[] {
  const episode = linkedSchema.safeParse(episodeRow)
  const settings = linkedSchema.safeParse(settingsRow)
  return [
    ...(episode.success ? (episode.data.guests ?? []) : []),
    ...(settings.success ? (settings.data.hosts ?? []) : []),
  ].map((voice) => voice.slug)
}

/**
 * The episode's `<item>` exactly as the feed would serve it (the server's mapper, the feed's own
 * item writer), or the reasons it would not be in the feed: the API would refuse the episode, it
 * has no audio with a byte length and type, or the podcast settings are missing or invalid.
 */
export function buildFeedPreview(
  episodeRow: unknown,
  settingsRow: unknown,
  voiceRows: readonly unknown[],
  settings: PreviewSettings,
): FeedPreview {
  const links = createLinks(settings)
  const voices = new Map<string, CatalogEntry<Voice>>()
  for (const row of voiceRows) {
    const mapped = mapOneDocument('voices', row, {links, feedUrl: settings.feedUrl, servedVoices: new Set()})
    if (mapped.ok && 'name' in mapped.entry.value)
      voices.set(mapped.entry.value.slug, {...mapped.entry, value: mapped.entry.value})
  }
  const reasons: string[] = []
  const episode = mapOneDocument('episodes', episodeRow, {
    links,
    feedUrl: settings.feedUrl,
    servedVoices: new Set(voices.keys()),
  })
  if (!episode.ok) reasons.push(...episode.messages.map((message) => `הפרק לא עובר את חוזה ה-API: ${message}`))
  const channel = settingsRow === null || settingsRow === undefined ? undefined : mapPodcastSettings(settingsRow, links)
  if (!channel) reasons.push('אין עדיין מסמך "הגדרות הפודקאסט" שפורסם: בלעדיו אין פיד.')
  else if (!channel.ok) reasons.push(...channel.messages.map((message) => `הגדרות הפודקאסט: ${message}`))
  if (!episode.ok || !channel?.ok) return {status: 'not-served', reasons}
  const entry = episodeEntry(episode.entry)
  if (!entry) return {status: 'not-served', reasons: ['לא פרק.']}
  const notice = scheduledNotice(entry.value.published_at)
  if (notice !== undefined) return {status: 'scheduled', notice}
  const hosts = channel.channel.hostSlugs.flatMap((slug) => voices.get(slug) ?? [])
  const item = feedItemOf(entry, {channel: channel.channel, hosts, voice: (slug) => voices.get(slug)})
  if (!item)
    return {
      status: 'not-served',
      reasons: ['אין לפרק אודיו עם גודל מדויק בבתים וסוג קובץ: פרק בלי אודיו לא נכנס לפיד.'],
    }
  return {status: 'served', xml: itemXml(item)}
}

/** mapOneDocument answers for any collection; an episode row maps to an Episode. */
function episodeEntry(entry: CatalogEntry<Episode | Meetup | Voice>): CatalogEntry<Episode> | undefined {
  const {value} = entry
  return 'episode_type' in value ? {...entry, value} : undefined
}
