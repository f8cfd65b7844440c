import {generateRssFeed} from 'feedsmith'
import type {ContentLink, FeedItem} from './feed-item.ts'

// No Node modules here: the Studio's feed preview writes an item with this very code in the browser.

// feedsmith writes text that holds markup as CDATA, so content can hold any tag's text there;
// outside CDATA every `<` is markup feedsmith wrote. Edits and searches look only outside it.
export const CDATA_SECTION = /(<!\[CDATA\[[\s\S]*?\]\]>)/

/** The first `needle` at or after `from` that is not inside a CDATA section (`from` must be outside one). */
export function indexOutsideCdata(xml: string, needle: string, from = 0): number {
  for (let position = from; ;) {
    const found = xml.indexOf(needle, position)
    const cdata = xml.indexOf('<![CDATA[', position)
    if (found === -1 || cdata === -1 || found < cdata) return found
    const end = xml.indexOf(']]>', cdata)
    if (end === -1) return -1
    position = end + 3
  }
}

// Apple Podcasts documents itunes:explicit as "true"/"false"; feedsmith writes "yes"/"no" (the
// older spelling). Only that element is rewritten: podcast:locked is "yes"/"no" by its own spec.
export const appleExplicit = (xml: string) =>
  xml
    .split(CDATA_SECTION)
    .map((part, index) =>
      index % 2 === 1
        ? part
        : part.replace(
            /<itunes:explicit>(yes|no)<\/itunes:explicit>/g,
            (_, value: string) => `<itunes:explicit>${value === 'yes' ? 'true' : 'false'}</itunes:explicit>`,
          ),
    )
    .join('')

// The channel fields that make a feedsmith document valid; a single item is generated inside one
// and cut out, so every item's bytes come from the library's own writer.
const MINIMAL_CHANNEL = {title: 'item', link: 'https://example.invalid/', description: 'item'}

/**
 * One item's XML, cut out of a one-item feed that feedsmith wrote. Its content links are written by
 * feedsmith too, inside a live item (where its types allow them) of a document of their own, and
 * put at the end of the item.
 *
 * Each cut is by structure, not by searching for text content could hold: in a document whose
 * other strings are our constants, the first opening tag of the element precedes all content and
 * the last closing tag follows it (content inside it is escaped or in CDATA, never a real tag).
 */
export function itemXml({item, contentLinks}: FeedItem): string {
  const itemElement = cut(generateRssFeed({...MINIMAL_CHANNEL, items: [item]}), '<item>', '</item>')
  if (contentLinks.length === 0) return appleExplicit(itemElement)
  const links = cut(
    generateRssFeed({...MINIMAL_CHANNEL, podcast: {liveItems: [linkHolder(contentLinks)]}}),
    '<podcast:contentLink',
    '</podcast:contentLink>',
  )
  // Before the line that closes the item, indented as the item's other children.
  const closing = itemElement.lastIndexOf('\n')
  const indent = /^<item>\n( *)/.exec(itemElement)?.[1] ?? ''
  return appleExplicit(`${itemElement.slice(0, closing)}\n${indent}${links}${itemElement.slice(closing)}`)
}

const linkHolder = (contentLinks: readonly ContentLink[]) => ({
  status: 'ended',
  start: new Date(0),
  contentLinks: [...contentLinks],
})

/** From the first `open` to the end of the last `close`, inclusive. */
function cut(xml: string, open: string, close: string): string {
  const start = xml.indexOf(open)
  const end = xml.lastIndexOf(close) + close.length
  if (start === -1 || end < start + open.length) throw new Error(`feedsmith wrote no ${open}> element`)
  return xml.slice(start, end)
}
