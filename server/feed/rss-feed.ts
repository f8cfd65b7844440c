import {createHash} from 'node:crypto'
import {generateRssFeed} from 'feedsmith'
import type {Catalog, CatalogEntry} from '../../catalog/v1/catalog.ts'
import type {Episode, Voice} from '../../catalog/v1/contract.ts'
import {ChunkedBody} from '../snapshot/chunked-body.ts'
import {feedItemOf, hasFeedItem, personOf, type ItemContext} from '../../catalog/feed/feed-item.ts'
import {appleExplicit, indexOutsideCdata, itemXml} from '../../catalog/feed/item-xml.ts'
import {firstForbiddenCharacter} from '../../catalog/v1/xml-text.ts'
import {podcastGuidOf} from '../../catalog/feed/podcast-guid.ts'
import {channelSpellings, channelTagsOf} from './channel-tags.ts'
import {SETTINGS_MISSING, type PodcastChannel} from '../../catalog/v1/podcast-settings.ts'
import {errorMessage} from '../errors.ts'
import {IdentityMemo} from '../identity-memo.ts'

export const FEED_PATH = '/feed.xml'

export interface FeedSettings {
  /** The feed's public address (FEED_URL, else this origin's /feed.xml): its `atom:link rel="self"`. */
  selfUrl: string
  /** The public site: the channel's `link`. */
  siteUrl: string
  /** A WebSub hub the feed names (`atom:link rel="hub"`), when one is configured. */
  websubHub?: string | undefined
}

/** The feed's bytes, as the channel around the items' own bytes, and the validator derived from their digests. */
export interface FeedDocument {
  body: ChunkedBody
  etag: string
  /** The newest edit or release in the feed: its `lastBuildDate`. */
  lastBuildDate: Date
  /** Items the feed holds (episodes with audio). */
  itemCount: number
  /** Episodes whose item could not be written, and why: left out, the rest of the feed is served. */
  leftOut: readonly {documentId: string; reason: string}[]
}

const FEED_INDENT = '    '

interface MadeItem {
  /** The item's bytes in order (the hosts' persons are one buffer that every item shares), or null for no item. */
  chunks: readonly Buffer[] | null
  /** Why an item the episode should have could not be written. */
  problem?: string
  digest: string
  /** When the item last changed in the feed: its content edited, or the episode released. */
  changedAtMs: number
  /** What the bytes were made from besides the entry: reused only while these are the same objects. */
  channel: PodcastChannel
  hosts: readonly CatalogEntry<Voice>[]
  guests: readonly (CatalogEntry<Voice> | undefined)[]
  /** The voices the guests were last found in: while the feed is made from the same ones, the guests are the same. */
  voices: ReadonlyMap<string, CatalogEntry<Voice>>
}

// Entries are immutable and a patched catalog keeps the unchanged ones, so an item's bytes are made
// once per entry (and the show and voices it names), like the API's items: an edit re-makes one item.
// The feed is assembled from every served episode after each edit, so checking an item allocates nothing.
const madeItems = new IdentityMemo<CatalogEntry<Episode>, MadeItem>()

function isCurrent(
  made: MadeItem,
  entry: CatalogEntry<Episode>,
  context: ItemContext,
  voices: ReadonlyMap<string, CatalogEntry<Voice>>,
): boolean {
  if (
    made.channel !== context.channel ||
    made.hosts !== context.hosts ||
    made.guests.length !== entry.value.guests.length
  )
    return false
  // Looking up every guest of 70k items took a third of an edit's feed at 100k documents.
  if (made.voices === voices) return true
  for (let index = 0; index < made.guests.length; index++) {
    if (made.guests[index] !== context.voice(entry.value.guests[index]?.slug ?? '')) return false
  }
  made.voices = voices
  return true
}

function itemBytes(
  entry: CatalogEntry<Episode>,
  context: ItemContext,
  voices: ReadonlyMap<string, CatalogEntry<Voice>>,
): MadeItem {
  return madeItems.get(
    entry,
    () => {
      const written = writeItem(entry, context)
      const chunks = typeof written === 'string' ? itemChunks(`\n${FEED_INDENT}${written}`, context.hosts) : null
      return {
        chunks,
        ...(written && typeof written === 'object' ? {problem: written.problem} : {}),
        digest: chunks
          ? chunks.reduce((hash, chunk) => hash.update(chunk), createHash('sha256')).digest('base64url')
          : '',
        changedAtMs: Math.max(Date.parse(entry.updatedAt), Date.parse(entry.value.published_at)),
        channel: context.channel,
        hosts: context.hosts,
        guests: entry.value.guests.map((guest) => context.voice(guest.slug)),
        voices,
      }
    },
    (made) => isCurrent(made, entry, context, voices),
  )
}

/**
 * The item's XML, null when the episode has none, or why it cannot be written. Text is cleaned as
 * it enters the catalog; this guard keeps one item the writer fails on from taking the feed down.
 */
function writeItem(entry: CatalogEntry<Episode>, context: ItemContext): string | null | {problem: string} {
  try {
    const item = feedItemOf(entry, context)
    if (!item) return null
    const xml = itemXml(item)
    const forbidden = firstForbiddenCharacter(xml)
    return forbidden ? {problem: `feed item: a character XML cannot carry at position ${forbidden.position}`} : xml
  } catch (error) {
    return {problem: `feed item: ${errorMessage(error)}`}
  }
}

// An item's persons replace the channel's, so every item restates the hosts: the same few hundred
// bytes once per episode, a large share of the feed. They are held once per hosts
// list and every item's bytes point at them; the bytes written are the same.
const PERSON_CLOSE = '</podcast:person>'
const sharedHosts = new IdentityMemo<readonly CatalogEntry<Voice>[], {xml: string; bytes: Buffer}>()

function itemChunks(xml: string, hosts: readonly CatalogEntry<Voice>[]): Buffer[] {
  const start = indexOutsideCdata(xml, '<podcast:person')
  let end = start
  for (let index = 0; index < hosts.length && end !== -1; index++) {
    const close = indexOutsideCdata(xml, PERSON_CLOSE, end)
    end = close === -1 ? -1 : close + PERSON_CLOSE.length
  }
  if (hosts.length === 0 || start === -1 || end === -1) return [Buffer.from(xml, 'utf8')]
  const hostsXml = xml.slice(start, end)
  const shared = sharedHosts.get(hosts, () => ({xml: hostsXml, bytes: Buffer.from(hostsXml, 'utf8')}))
  // Should that place ever hold anything else, the item keeps bytes of its own.
  if (shared.xml !== hostsXml) return [Buffer.from(xml, 'utf8')]
  return [Buffer.from(xml.slice(0, start), 'utf8'), shared.bytes, Buffer.from(xml.slice(end), 'utf8')]
}

const voiceIndexes = new IdentityMemo<readonly CatalogEntry<Voice>[], Map<string, CatalogEntry<Voice>>>()
function voiceIndexOf(voices: readonly CatalogEntry<Voice>[]): Map<string, CatalogEntry<Voice>> {
  return voiceIndexes.get(voices, () => new Map(voices.map((voice) => [voice.value.slug, voice])))
}

// The hosts as one array per channel and voice index, so items can tell by identity that they did not change.
const hostLists = new IdentityMemo<
  PodcastChannel,
  {voices: Map<string, CatalogEntry<Voice>>; hosts: readonly CatalogEntry<Voice>[]}
>()
function hostsOf(channel: PodcastChannel, voices: Map<string, CatalogEntry<Voice>>): readonly CatalogEntry<Voice>[] {
  return hostLists.get(
    channel,
    (_, known) => {
      const hosts = channel.hostSlugs.flatMap((slug) => voices.get(slug) ?? [])
      // Unchanged hosts keep the array, so a voice edit elsewhere re-makes no item.
      const same =
        known && known.hosts.length === hosts.length && known.hosts.every((host, index) => host === hosts[index])
      return {voices, hosts: same ? known.hosts : hosts}
    },
    (known) => known.voices === voices,
  ).hosts
}

/**
 * The podcast's RSS 2.0 feed with the iTunes and Podcasting 2.0 namespaces, from the catalog of
 * one snapshot. Nothing in it depends on the clock: `lastBuildDate` is the newest edit or release among what it shows.
 * Undefined when the catalog has no valid podcast settings (a feed without a channel is no feed).
 */
export function buildFeed(catalog: Catalog, settings: FeedSettings): FeedDocument | undefined {
  if (!catalog.podcast?.ok) return undefined
  const channel = catalog.podcast.channel
  const voices = voiceIndexOf(catalog.voices)
  const hosts = hostsOf(channel, voices)
  const context: ItemContext = {channel, hosts, voice: (slug) => voices.get(slug)}
  const chunks: Buffer[] = [Buffer.alloc(0)] // the channel's head goes first, once its date is known
  const digests: string[] = []
  const leftOut: {documentId: string; reason: string}[] = []
  let newest = Date.parse(channel.updatedAt)
  for (const entry of catalog.episodes) {
    const made = itemBytes(entry, context, voices)
    if (made.problem !== undefined) leftOut.push({documentId: entry.documentId, reason: made.problem})
    if (!made.chunks) continue
    chunks.push(...made.chunks)
    digests.push(made.digest)
    if (made.changedAtMs > newest) newest = made.changedAtMs
  }
  const lastBuildDate = new Date(newest)
  const [head, tail] = channelXml(channel, hosts, settings, lastBuildDate, trailersOf(catalog.episodes))
  chunks[0] = head
  chunks.push(tail)
  const digest = createHash('sha256').update(head).update(digests.join(' ')).update(tail)
  return {
    body: new ChunkedBody(chunks),
    etag: `"${digest.digest('base64url').slice(0, 32)}"`,
    lastBuildDate,
    itemCount: digests.length,
    leftOut,
  }
}

/** How many items `buildFeed` would hold, without making them; undefined when there would be no feed. */
export function feedItemCount(catalog: Catalog): number | undefined {
  if (!catalog.podcast?.ok) return undefined
  let count = 0
  for (const entry of catalog.episodes) if (hasFeedItem(entry.value)) count++
  return count
}

type Trailer = NonNullable<NonNullable<Parameters<typeof generateRssFeed>[0]['podcast']>['trailers']>[number]

/**
 * The channel's `podcast:trailer`s (podcast-namespace docs/tags/trailer.md): one per served episode
 * of type trailer that has audio, as its item encloses it, with its title, release time and season.
 * Newest first, as the episodes are: apps show the newest by its pubdate.
 */
function trailersOf(episodes: readonly CatalogEntry<Episode>[]): Trailer[] {
  // A loop, not flatMap: the feed is assembled after every edit, over every served episode.
  const trailers: Trailer[] = []
  for (const {value: episode} of episodes) {
    if (episode.episode_type !== 'trailer' || !hasFeedItem(episode)) continue
    trailers.push({
      display: episode.title,
      url: episode.audio.url,
      pubDate: new Date(episode.published_at),
      length: episode.audio.length_bytes,
      type: episode.audio.mime_type,
      ...(episode.season === null ? {} : {season: episode.season}),
    })
  }
  return trailers
}

/** The document around the items: everything before them and everything after. */
function channelXml(
  channel: PodcastChannel,
  hosts: readonly CatalogEntry<Voice>[],
  settings: FeedSettings,
  lastBuildDate: Date,
  trailers: readonly Trailer[],
): [Buffer, Buffer] {
  const tags = channelTagsOf(channel, settings.siteUrl)
  const xml = channelSpellings(
    appleExplicit(
      generateRssFeed({
        title: channel.title,
        link: settings.siteUrl,
        description: channel.description,
        language: 'he',
        copyright: channel.copyright,
        lastBuildDate,
        image: tags.image,
        atom: {
          links: [
            {href: settings.selfUrl, rel: 'self', type: 'application/rss+xml'},
            ...(settings.websubHub ? [{href: settings.websubHub, rel: 'hub'}] : []),
          ],
        },
        itunes: {
          image: channel.artworkUrl,
          categories: channel.categories.map(({category, subcategory}) => ({
            text: category,
            ...(subcategory ? {categories: [{text: subcategory}]} : {}),
          })),
          explicit: channel.explicit,
          author: channel.author,
          owner: channel.owner,
          type: channel.type,
          ...tags.itunes,
        },
        podcast: {
          guid: channel.guid ?? podcastGuidOf(settings.selfUrl),
          locked: {value: channel.locked, owner: channel.owner.email},
          persons: hosts.map((host) => personOf(host.value, 'host')),
          ...(channel.funding ? {fundings: [{url: channel.funding.url, display: channel.funding.text}]} : {}),
          ...(trailers.length > 0 ? {trailers: [...trailers]} : {}),
          ...tags.podcast,
        },
      }),
    ),
  )
  const close = xml.lastIndexOf('</channel>')
  // The items go right after the channel's own elements, before the whitespace that precedes </channel>.
  const insertAt = xml.slice(0, close).trimEnd().length
  return [Buffer.from(xml.slice(0, insertAt), 'utf8'), Buffer.from(xml.slice(insertAt), 'utf8')]
}

/**
 * Why there is no feed: the settings were refused, or there is no settings document, and no valid
 * channel is held (none was served before). Undefined when there is a feed.
 */
export function feedUnavailableDetail(catalog: Catalog): string | undefined {
  const podcast = catalog.podcast
  if (podcast?.ok) return undefined
  if (!podcast) return `${upperFirst(SETTINGS_MISSING)}.`
  return `The podcast settings are invalid and no valid version is held, so there is no feed to serve until they are fixed: ${podcast.messages.join('; ')}`
}

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
