import type {RssFeed} from 'feedsmith'
import type {CatalogEntry} from '../api/v1/catalog.ts'
import type {Episode, Voice} from '../api/v1/contract.ts'
import {itemDescriptionHtml} from './item-description.ts'
import type {PodcastChannel} from '../api/v1/podcast-settings.ts'

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

/**
 * One episode as an RSS `<item>` (feedsmith's shape), or undefined when it has no audio to enclose:
 * podcast apps cannot play an item without an enclosure, so it is left out of the feed.
 */
export function feedItemOf(entry: CatalogEntry<Episode>, context: ItemContext): RssFeed.Item<Date> | undefined {
  const episode = entry.value
  if (!episode.audio) return undefined
  const guests = episode.guests.flatMap((guest) => context.voice(guest.slug) ?? [])
  return {
    title: episode.title,
    link: episode.url,
    // The document id never changes when the slug, title or date is edited, so apps never see a re-post.
    guid: {value: entry.documentId, isPermaLink: false},
    pubDate: new Date(`${episode.published_date}T00:00:00Z`),
    description: itemDescriptionHtml(episode.description, episode.takeaways),
    enclosures: [{url: episode.audio.url, length: episode.audio.length_bytes, type: episode.audio.mime_type}],
    itunes: {
      ...(episode.duration_seconds === null ? {} : {duration: episode.duration_seconds}),
      image: episode.artwork_url ?? context.channel.artworkUrl,
      explicit: episode.explicit,
      ...(episode.episode_number === null ? {} : {episode: episode.episode_number}),
      ...(episode.season === null ? {} : {season: episode.season}),
      episodeType: episode.episode_type,
    },
    podcast: {
      // An item's persons replace the channel's, so the hosts are restated before the guests.
      persons: [...context.hosts.map((host) => personOf(host.value, 'host')), ...guests.map((guest) => personOf(guest.value, 'guest'))],
      ...(episode.transcript ? {transcripts: [{url: episode.transcript.url, type: episode.transcript.mime_type}]} : {}),
    },
  }
}
