import type {RssFeed} from 'feedsmith'
import type {CatalogEntry} from '../v1/catalog.ts'
import type {Episode, Voice} from '../v1/contract.ts'
import {itemDescriptionHtml} from './item-description.ts'
import {itunesTitleOf} from './item-title.ts'
import type {PodcastChannel} from '../v1/podcast-settings.ts'
import {MEDIA_TYPES} from '../media-types.ts'

/** A podcast:person for a served voice: its name, picture and page. */
export function personOf(voice: Voice, role: 'host' | 'guest') {
  return {display: voice.name, role, ...(voice.image_url ? {img: voice.image_url} : {}), href: voice.url}
}

/** What an item shows besides its own episode: the show (artwork, hosts) and the voices it names. */
export interface ItemContext {
  channel: PodcastChannel
  hosts: readonly CatalogEntry<Voice>[]
  voice(slug: string): CatalogEntry<Voice> | undefined
}

/** A `podcast:contentLink`: where the episode can be found outside a podcast app. */
export interface ContentLink {
  href: string
  display: string
}

/**
 * One episode as an RSS item: feedsmith's shape, and its content links, which the Podcasting 2.0
 * namespace allows in an `<item>` but feedsmith's item type does not carry.
 */
export interface FeedItem {
  item: RssFeed.Item<Date>
  contentLinks: readonly ContentLink[]
}

/** The video's link text, in the show's language. */
export const VIDEO_LINK_TEXT = 'צפו בפרק ביוטיוב'

type EpisodeWithAudio = Episode & {audio: NonNullable<Episode['audio']>}

/** Whether the episode is in the feed: podcast apps cannot play an item without audio to enclose, so one without is left out. */
export const hasFeedItem = (episode: Episode): episode is EpisodeWithAudio => Boolean(episode.audio)

/** One episode as an RSS `<item>`, or undefined when it has none (see hasFeedItem). */
export function feedItemOf(entry: CatalogEntry<Episode>, context: ItemContext): FeedItem | undefined {
  const episode = entry.value
  if (!hasFeedItem(episode)) return undefined
  return {
    item: rssItemOf(entry, episode.audio, context),
    contentLinks: episode.video_url ? [{href: episode.video_url, display: VIDEO_LINK_TEXT}] : [],
  }
}

function rssItemOf(
  entry: CatalogEntry<Episode>,
  audio: NonNullable<Episode['audio']>,
  context: ItemContext,
): RssFeed.Item<Date> {
  const episode = entry.value
  // A host who is also a guest stands once, as host: apps list every podcast:person they read.
  const isHost = (slug: string) => context.hosts.some((host) => host.value.slug === slug)
  const guests = episode.guests.flatMap((guest) => (isHost(guest.slug) ? [] : (context.voice(guest.slug) ?? [])))
  const itunesTitle = episode.episode_number === null ? undefined : itunesTitleOf(episode.title)
  return {
    title: episode.title,
    link: episode.url,
    // The document id never changes when the slug, title or date is edited, so apps never see a re-post.
    guid: {value: entry.documentId, isPermaLink: false},
    pubDate: new Date(episode.published_at),
    description: itemDescriptionHtml(episode.description, episode.takeaways),
    enclosures: [{url: audio.url, length: audio.length_bytes, type: audio.mime_type}],
    itunes: {
      ...(itunesTitle === undefined ? {} : {title: itunesTitle}),
      ...(episode.duration_seconds === null ? {} : {duration: episode.duration_seconds}),
      image: episode.artwork_url ?? context.channel.artworkUrl,
      explicit: episode.explicit,
      ...(episode.episode_number === null ? {} : {episode: episode.episode_number}),
      ...(episode.season === null ? {} : {season: episode.season}),
      episodeType: episode.episode_type,
    },
    podcast: {
      // An item's persons replace the channel's, so the hosts are restated before the guests.
      persons: [
        ...context.hosts.map((host) => personOf(host.value, 'host')),
        ...guests.map((guest) => personOf(guest.value, 'guest')),
      ],
      ...(episode.transcripts.length > 0
        ? {transcripts: episode.transcripts.map((transcript) => transcriptOf(transcript, episode.language))}
        : {}),
      ...(episode.chapters_url ? {chapters: {url: episode.chapters_url, type: MEDIA_TYPES.chapters}} : {}),
      // The Podcasting 2.0 numbers beside the iTunes ones, for the apps that read only the namespace.
      ...(episode.season === null
        ? {}
        : {season: {number: episode.season, ...(episode.season_name ? {name: episode.season_name} : {})}}),
      ...(episode.episode_number === null ? {} : {episode: {number: episode.episode_number}}),
      ...(episode.soundbites.length > 0
        ? {
            soundbites: episode.soundbites.map((soundbite) => ({
              startTime: soundbite.start_seconds,
              duration: soundbite.duration_seconds,
              ...(soundbite.title ? {display: soundbite.title} : {}),
            })),
          }
        : {}),
      ...(episode.license ? {license: licenseOf(episode.license)} : {}),
      ...(episode.alternate_enclosures.length > 0
        ? {alternateEnclosures: alternateEnclosuresOf(audio, episode.alternate_enclosures)}
        : {}),
    },
  }
}

/** A `podcast:license`: the identifier, and the URL of its text when there is one. */
function licenseOf(license: NonNullable<Episode['license']>) {
  return {display: license.identifier, ...(license.url ? {url: license.url} : {})}
}

type Alternate = Episode['alternate_enclosures'][number]

/**
 * The item's `podcast:alternateEnclosure`s, as the namespace lists them (docs/tags/alternate-enclosure.md
 * and its companion document): the enclosure itself first, marked default, then the other versions.
 * An entry the editor marked default is the enclosure's own file at another address, so it is a
 * second `podcast:source` of the enclosure's entry (with its type as `contentType` should it differ).
 */
function alternateEnclosuresOf(audio: NonNullable<Episode['audio']>, alternates: readonly Alternate[]) {
  const mirror = alternates.find((alternate) => alternate.default)
  const attributes = (alternate: Alternate | undefined) => ({
    ...(alternate?.bitrate ? {bitrate: alternate.bitrate} : {}),
    ...(alternate?.height ? {height: alternate.height} : {}),
    ...(alternate?.title ? {title: alternate.title} : {}),
  })
  return [
    {
      type: audio.mime_type,
      length: audio.length_bytes,
      ...attributes(mirror),
      default: true,
      sources: [
        {uri: audio.url},
        ...(mirror
          ? [{uri: mirror.url, ...(mirror.mime_type === audio.mime_type ? {} : {contentType: mirror.mime_type})}]
          : []),
      ],
    },
    ...alternates
      .filter((alternate) => !alternate.default)
      .map((alternate) => ({
        type: alternate.mime_type,
        length: alternate.length_bytes,
        ...attributes(alternate),
        sources: [{uri: alternate.url}],
      })),
  ]
}

/**
 * One `podcast:transcript` per format, WebVTT first (the item lists them so), in the episode's
 * language; a WebVTT file is timed text that apps can show as captions, which `rel="captions"` tells them.
 */
function transcriptOf(transcript: Episode['transcripts'][number], language: string) {
  return {
    url: transcript.url,
    type: transcript.mime_type,
    language,
    ...(transcript.mime_type === 'text/vtt' ? {rel: 'captions'} : {}),
  }
}
