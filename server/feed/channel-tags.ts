import escapeHtml from 'escape-html'
import type {RssFeed} from 'feedsmith'
import type {PodcastChannel} from '../../catalog/v1/podcast-settings.ts'
import {podcastGuidOf} from '../../catalog/feed/podcast-guid.ts'
import {CDATA_SECTION, indexOutsideCdata} from '../../catalog/feed/item-xml.ts'

// The channel tags an editor sets in the podcast settings, as feedsmith writes them: each only when
// it is set, except podcast:medium, which says `podcast` (the namespace's own default) until set.

type ChannelParts = Pick<RssFeed.Feed<Date>, 'image' | 'itunes' | 'podcast'>

/**
 * The channel's `<image>` (the show's artwork, titled and linked as the channel is), and the
 * settings' tags in the itunes and podcast namespaces.
 */
export function channelTagsOf(channel: PodcastChannel, siteUrl: string) {
  const {tags} = channel
  const frequency = tags.updateFrequency
  return {
    image: {url: channel.artworkUrl, title: channel.title, link: siteUrl},
    itunes: {
      ...(tags.newFeedUrl ? {newFeedUrl: tags.newFeedUrl} : {}),
      ...(tags.block ? {block: true} : {}),
      ...(tags.complete ? {complete: true} : {}),
    },
    podcast: {
      medium: tags.medium,
      ...(tags.txts.length > 0
        ? {txts: tags.txts.map((txt) => ({display: txt.text, ...(txt.purpose ? {purpose: txt.purpose} : {})}))}
        : {}),
      ...(frequency
        ? {
            updateFrequency: {
              display: frequency.text,
              ...(frequency.complete ? {complete: true} : {}),
              ...(frequency.start ? {dtstart: new Date(frequency.start)} : {}),
              ...(frequency.rrule ? {rrule: frequency.rrule} : {}),
            },
          }
        : {}),
      ...(tags.license
        ? {license: {display: tags.license.identifier, ...(tags.license.url ? {url: tags.license.url} : {})}}
        : {}),
      ...(tags.podroll.length > 0
        ? {
            podroll: {
              remoteItems: tags.podroll.map((show) => ({
                // A show named by its URL alone: its guid as the namespace derives one from the URL.
                feedGuid: show.feedGuid ?? podcastGuidOf(show.feedUrl ?? ''),
                ...(show.feedUrl ? {feedUrl: show.feedUrl} : {}),
                ...(show.title ? {title: show.title} : {}),
              })),
            },
          }
        : {}),
    },
  } satisfies ChannelParts
}

// feedsmith writes "yes" for itunes:block and itunes:complete; Apple documents `Yes`, and says any
// other value has no effect.
const APPLE_YES = /<itunes:(block|complete)>yes<\/itunes:\1>/g

// feedsmith puts a text with `&` (the artwork URL's query) in CDATA on a line of its own, so the
// `<url>` would hold the URL between line breaks; an address is written escaped, on one line.
const IMAGE_URL = /^(<image>\s*<url>)\s*<!\[CDATA\[([^\]]*)\]\]>\s*(<\/url>)/

/** The channel's XML with the spellings Apple and RSS readers expect, outside CDATA only. */
export function channelSpellings(xml: string): string {
  const image = indexOutsideCdata(xml, '<image>')
  const imaged =
    image === -1
      ? xml
      : xml.slice(0, image) +
        xml
          .slice(image)
          .replace(IMAGE_URL, (_, open: string, url: string, close: string) => open + escapeHtml(url) + close)
  return imaged
    .split(CDATA_SECTION)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(APPLE_YES, '<itunes:$1>Yes</itunes:$1>')))
    .join('')
}
