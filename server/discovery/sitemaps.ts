import escape from 'escape-html'
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import type {LeftOut, SiteDocument} from '../snapshot/site-documents-on-first-use.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {firstForbiddenCharacter} from '../../catalog/v1/xml-text.ts'
import {strongEtag} from '../snapshot/representation.ts'
import {errorMessage} from '../errors.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'
import {IdentityMemo} from '../identity-memo.ts'

const MAX_URLS = 50_000 // per sitemap file, as the sitemaps protocol allows

interface Entry {
  /** Milliseconds since the epoch: a number is smaller than a Date, and there is one per item. */
  lastmod: number
  /** The `<url>` element. */
  line: string
}

// An item's `<url>` line, made once per catalog entry (entries are immutable): after an edit, a
// sitemap is the same lines joined again, not every item's date formatted again.
type Line = (Entry | {problem: string}) & {base: string}
const lines = new IdentityMemo<CatalogEntry<unknown>, Line>()

/** A collection's sitemap entries, made from one list of catalog entries for one public address. */
interface CollectionEntries {
  catalogEntries: readonly CatalogEntry<unknown>[]
  /** Each catalog entry's line, by position. */
  lines: Line[]
  entries: Entry[]
  lastmod: number
  leftOut: LeftOut[]
}
// Each collection's last entries: an edit changes one or two lines of 70k, and reading the others
// by position from the last list is much cheaper than looking each one up by its entry.
let lastCollections = new Map<string, CollectionEntries>()

/** A sitemap file's bytes and ETag, kept from one build to the next while its lines stay the same. */
interface SitemapFile {
  entries: readonly Entry[]
  body: Buffer
  etag: string
  lastmod: number
}
// The last build's files only: a sitemap of 50,000 unchanged lines is neither joined nor hashed again.
let lastFiles = new Map<string, SitemapFile>()
const sitemapFile = (entries: readonly Entry[], text: string): SitemapFile => {
  const body = Buffer.from(text, 'utf8')
  return {entries, body, etag: strongEtag(body), lastmod: dateOf(entries)}
}
const sameLines = (before: readonly Entry[], after: readonly Entry[]) =>
  before.length === after.length && before.every((entry, at) => entry.line === after[at]?.line)

const w3c = (time: number) => new Date(time).toISOString().replace('.000Z', 'Z')
const latest = (times: readonly number[]) => times.reduce((newest, time) => Math.max(newest, time), 0)
function dateOf(entries: readonly Entry[]): number {
  let newest = 0
  for (const entry of entries) if (entry.lastmod > newest) newest = entry.lastmod
  return newest
}

/** An item's entry, or why it cannot be written: one item never takes its sitemap down. */
function guarded(make: () => Entry): Entry | {problem: string} {
  try {
    const entry = make()
    const forbidden = firstForbiddenCharacter(entry.line)
    return forbidden ? {problem: `sitemap: a character XML cannot carry at position ${forbidden.position}`} : entry
  } catch (error) {
    return {problem: `sitemap: ${errorMessage(error)}`}
  }
}

/**
 * `/sitemap-index.xml` and one sitemap per collection (split every 50,000 URLs) listing the API
 * records, plus one for the list and service documents: clients re-read what moved. Dates come
 * from the content (the latest `_updatedAt` an item shows), never from when a rebuild ran, so
 * replicas that read the same content serve the same bytes whatever order their edits came in.
 */
export function buildSitemaps(
  snapshot: Snapshot,
  publicBaseUrl: string,
  leftOut: (item: LeftOut) => void = () => {},
): SiteDocument[] {
  const api = (path: string) => `${publicBaseUrl}/api/v1/${path}`
  // Joined, not a template literal: one flat string instead of a rope of six, which is smaller to
  // keep for every item and which the sitemap's own join copies without walking a tree.
  const line = (path: string, lastmod: number) =>
    ['<url><loc>', escape(api(path)), '</loc><lastmod>', w3c(lastmod), '</lastmod></url>'].join('')
  const lineOf = (name: CollectionName, catalogEntry: CatalogEntry<{slug: string}>): Line =>
    lines.get(
      catalogEntry,
      () => {
        const lastmod = Date.parse(catalogEntry.updatedAt)
        return {
          base: publicBaseUrl,
          ...guarded(() => ({lastmod, line: line(`${name}/${catalogEntry.value.slug}.json`, lastmod)})),
        }
      },
      (cached) => cached.base === publicBaseUrl,
    )
  const collections = new Map<string, CollectionEntries>()
  // A collection another edit did not touch keeps its entries whole (and so its sitemap files).
  const collectionOf = (name: CollectionName): CollectionEntries => {
    const catalogEntries = snapshot.catalog[name]
    const key = `${publicBaseUrl} ${name}`
    const earlier = lastCollections.get(key)
    const made = earlier?.catalogEntries === catalogEntries ? earlier : entriesOf(name, catalogEntries, earlier)
    collections.set(key, made)
    made.leftOut.forEach(leftOut)
    return made
  }
  const entriesOf = (
    name: CollectionName,
    catalogEntries: readonly CatalogEntry<{slug: string}>[],
    earlier: CollectionEntries | undefined,
  ): CollectionEntries => {
    const madeLines: Line[] = []
    const entries: Entry[] = []
    const left: LeftOut[] = []
    catalogEntries.forEach((catalogEntry, at) => {
      const itemLine = (earlier?.catalogEntries[at] === catalogEntry && earlier.lines[at]) || lineOf(name, catalogEntry)
      madeLines.push(itemLine)
      if ('line' in itemLine) entries.push(itemLine)
      else left.push({documentId: catalogEntry.documentId, reason: itemLine.problem})
    })
    return {catalogEntries, lines: madeLines, entries, lastmod: dateOf(entries), leftOut: left}
  }
  const items: Record<CollectionName, CollectionEntries> = {
    episodes: collectionOf('episodes'),
    meetups: collectionOf('meetups'),
    voices: collectionOf('voices'),
  }
  lastCollections = collections
  const everything = latest(COLLECTION_NAMES.map((name) => items[name].lastmod))
  // Every snapshot serves these; asking it for all.json would assemble the bulk document just to list it.
  const document = (path: string, lastmod: number): Entry => ({lastmod, line: line(path, lastmod)})
  const groups: [string, readonly Entry[]][] = [
    [
      'api',
      [
        document('index.json', everything),
        document('all.json', everything),
        ...COLLECTION_NAMES.map((name) =>
          document(`${name}.json`, items[name].entries.length > 0 ? items[name].lastmod : everything),
        ),
      ],
    ],
  ]
  for (const name of COLLECTION_NAMES) {
    const {entries} = items[name]
    for (let part = 0; part * MAX_URLS < Math.max(entries.length, 1); part++) {
      groups.push([part === 0 ? name : `${name}-${part + 1}`, entries.slice(part * MAX_URLS, (part + 1) * MAX_URLS)])
    }
  }
  const files = new Map<string, SitemapFile>()
  const written = groups.map(([name, entries]) => {
    const path = `/sitemaps/${name}.xml`
    const earlier = lastFiles.get(`${publicBaseUrl}${path}`)
    const file =
      earlier && sameLines(earlier.entries, entries)
        ? earlier
        : sitemapFile(
            entries,
            `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.map((entry) => entry.line).join('\n')}\n</urlset>\n`,
          )
    files.set(`${publicBaseUrl}${path}`, file)
    return {path, file}
  })
  lastFiles = files
  const sitemaps: SiteDocument[] = written.map(({path, file}) => ({
    path,
    contentType: MEDIA_TYPES.xml,
    body: file.body,
    etag: file.etag,
  }))
  const index = written
    .map(
      ({path, file}) =>
        `<sitemap><loc>${escape(`${publicBaseUrl}${path}`)}</loc><lastmod>${w3c(file.lastmod)}</lastmod></sitemap>`,
    )
    .join('\n')
  return [
    {
      path: '/sitemap-index.xml',
      contentType: MEDIA_TYPES.xml,
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${index}\n</sitemapindex>\n`,
    },
    ...sitemaps,
  ]
}
