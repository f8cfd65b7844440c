// The XML writers' own guard, below the catalog's cleaning: an item that cannot be written (its
// writer throws, or it would carry a character XML refuses) is left out and reported, and the rest
// of the document is served. The catalogs here are built by the server's mapping and then given a
// bad entry by hand, as a bug upstream of the writers could. Checked by xmllint, run as a process.
import {execFileSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import type {Catalog, CatalogEntry} from '../../catalog/v1/catalog.ts'
import {feedSiteDocument} from '../../server/discovery/site-documents.ts'
import {buildSitemaps} from '../../server/discovery/sitemaps.ts'
import type {LeftOut} from '../../server/snapshot/site-documents-on-first-use.ts'
import {buildFeed} from '../../server/feed/rss-feed.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {ensureDebianProgram} from '../../support/debian.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const XMLLINT = ensureDebianProgram('/usr/bin/xmllint', ['libxml2-utils'])
const wellFormed = (xml: string) => {
  execFileSync(XMLLINT, ['--noout', '-'], {input: xml, stdio: ['pipe', 'ignore', 'pipe']})
  return true
}

const catalog = await catalogOf(sampleDocuments)
const FEED = {selfUrl: 'http://api.test/feed.xml', siteUrl: 'https://site.test'}

/** The catalog with one entry of a collection replaced by `change(entry)`. */
function withEntry<Name extends 'episodes' | 'voices'>(
  name: Name,
  index: number,
  change: (entry: Catalog[Name][number]) => Catalog[Name][number],
): Catalog {
  return {...catalog, [name]: catalog[name].map((entry, at) => (at === index ? change(entry) : entry))}
}

describe('the feed', () => {
  const target = catalog.episodes.findIndex((entry) => entry.value.audio !== null)
  const targetId = catalog.episodes[target]?.documentId
  const baseline = buildFeed(catalog, FEED)

  it('leaves out an item that would carry a character XML refuses, says which and where, and serves the rest', () => {
    expect(baseline?.leftOut).toEqual([])
    const feed = buildFeed(
      withEntry('episodes', target, (entry) => ({...entry, value: {...entry.value, title: 'ab\u0008c'}})),
      FEED,
    )
    expect(feed?.leftOut).toEqual([{documentId: targetId, reason: expect.stringMatching(/position \d+$/)}])
    expect(feed?.itemCount).toBe((baseline?.itemCount ?? 0) - 1)
    expect(wellFormed(feed?.body.toString('utf8') ?? '')).toBe(true)
  })

  it("tells the site documents' caller what it left out", () => {
    const poisoned = withEntry('episodes', target, (entry) => ({...entry, value: {...entry.value, title: '\uFFFE'}}))
    const leftOut: LeftOut[] = []
    const site = {
      publicBaseUrl: 'http://api.test',
      siteUrl: 'https://site.test',
      feedUrl: 'http://api.test/feed.xml',
      apiName: 'Catalog',
    }
    const feed = feedSiteDocument(buildSnapshot(poisoned, snapshotSettings({}), undefined, new Date()), site, (item) =>
      leftOut.push(item),
    )
    expect(feed?.path).toBe('/feed.xml')
    expect(leftOut.map((item) => item.documentId)).toEqual([targetId])
  })

  it('leaves out an item whose writer throws', () => {
    const throwing = (entry: CatalogEntry<(typeof catalog.episodes)[number]['value']>) => {
      const value = {...entry.value}
      Object.defineProperty(value, 'title', {
        get: () => {
          throw new Error('unwritable title')
        },
      })
      return {...entry, value}
    }
    const feed = buildFeed(withEntry('episodes', target, throwing), FEED)
    expect(feed?.leftOut).toEqual([{documentId: targetId, reason: 'feed item: unwritable title'}])
    expect(feed?.itemCount).toBe((baseline?.itemCount ?? 0) - 1)
  })
})

describe('the sitemaps', () => {
  it('leave out an item whose <url> would carry a character XML refuses, and report it', () => {
    const poisoned = withEntry('voices', 0, (entry) => ({...entry, value: {...entry.value, slug: 'a\u0000b'}}))
    const snapshot = buildSnapshot(poisoned, snapshotSettings({}), undefined, new Date())
    const leftOut: LeftOut[] = []
    const sitemaps = buildSitemaps(snapshot, 'http://api.test', (item) => leftOut.push(item))
    expect(leftOut).toEqual([
      {documentId: catalog.voices[0]?.documentId, reason: expect.stringMatching(/^sitemap: .*position/)},
    ])
    for (const sitemap of sitemaps) expect(wellFormed(String(sitemap.body)), sitemap.path).toBe(true)
    const voices = String(sitemaps.find((sitemap) => sitemap.path === '/sitemaps/voices.xml')?.body)
    expect(voices.match(/<url>/g)).toHaveLength(catalog.voices.length - 1)
  })
})
