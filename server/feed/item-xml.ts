import {generateRssFeed, type RssFeed} from 'feedsmith'

// No Node modules here: the Studio's feed preview writes an item with this very code in the browser.

// Apple Podcasts documents itunes:explicit as "true"/"false"; feedsmith writes "yes"/"no" (the
// older spelling). Only that element is rewritten: podcast:locked is "yes"/"no" by its own spec.
export const appleExplicit = (xml: string) => xml.replace(/<itunes:explicit>(yes|no)<\/itunes:explicit>/g, (_, value: string) => `<itunes:explicit>${value === 'yes' ? 'true' : 'false'}</itunes:explicit>`)

// The channel fields that make a feedsmith document valid; a single item is generated inside one
// and cut out, so every item's bytes come from the library's own writer.
const MINIMAL_CHANNEL = {title: 'item', link: 'https://example.invalid/', description: 'item'}

/** One item's XML, cut out of a one-item feed that feedsmith wrote. */
export function itemXml(item: RssFeed.Item<Date>): string {
  const xml = generateRssFeed({...MINIMAL_CHANNEL, items: [item]})
  const start = xml.indexOf('<item>')
  const end = xml.lastIndexOf('</item>') + '</item>'.length
  if (start === -1 || end < start) throw new Error('feedsmith wrote no <item> element')
  return appleExplicit(xml.slice(start, end))
}

