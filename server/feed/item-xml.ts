import {generateRssFeed} from 'feedsmith'
import type {ContentLink, FeedItem} from './feed-item.ts'

// No Node modules here: the Studio's feed preview writes an item with this very code in the browser.

// Apple Podcasts documents itunes:explicit as "true"/"false"; feedsmith writes "yes"/"no" (the
// older spelling). Only that element is rewritten: podcast:locked is "yes"/"no" by its own spec.
export const appleExplicit = (xml: string) =>
  xml.replace(/<itunes:explicit>(yes|no)<\/itunes:explicit>/g, (_, value: string) => `<itunes:explicit>${value === 'yes' ? 'true' : 'false'}</itunes:explicit>`)

// The channel fields that make a feedsmith document valid; a single item is generated inside one
// and cut out, so every item's bytes come from the library's own writer.
const MINIMAL_CHANNEL = {title: 'item', link: 'https://example.invalid/', description: 'item'}

/**
 * One item's XML, cut out of a one-item feed that feedsmith wrote. Its content links are written by
 * feedsmith too, inside a live item (where its types allow them), and moved to the end of the item.
 */
export function itemXml({item, contentLinks}: FeedItem): string {
  const xml = generateRssFeed({...MINIMAL_CHANNEL, items: [item], ...(contentLinks.length > 0 ? {podcast: {liveItems: [linkHolder(contentLinks)]}} : {})})
  const itemElement = cut(xml, '<item>', '</item>')
  if (contentLinks.length === 0) return appleExplicit(itemElement)
  const links = cut(xml, '<podcast:contentLink', '</podcast:contentLink>')
  // Before the line that closes the item, indented as the item's other children.
  const closing = itemElement.lastIndexOf('\n')
  const indent = /\n( *)<[^/]/.exec(itemElement)?.[1] ?? ''
  return appleExplicit(`${itemElement.slice(0, closing)}\n${indent}${links}${itemElement.slice(closing)}`)
}

const linkHolder = (contentLinks: readonly ContentLink[]) => ({status: 'ended', start: new Date(0), contentLinks: [...contentLinks]})

/** From the first `open` to the end of the last `close`, inclusive. */
function cut(xml: string, open: string, close: string): string {
  const start = xml.indexOf(open)
  const end = xml.lastIndexOf(close) + close.length
  if (start === -1 || end < start + open.length) throw new Error(`feedsmith wrote no ${open}> element`)
  return xml.slice(start, end)
}
