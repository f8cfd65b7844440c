import {describe, expect, it} from 'vitest'
import {represent, type Representation} from '../../server/snapshot/representation.ts'
import {siteDocumentsOnFirstUse, type SiteDocumentsOptions} from '../../server/snapshot/site-documents-on-first-use.ts'
import {collectGarbage} from '../helpers/gc.ts'

const TEXT = 'text/plain; charset=utf-8'
const builtAt = new Date('2026-02-01T00:00:00Z')
const contentLastModified = new Date('2026-01-15T00:00:00Z')
const earlierDate = new Date('2026-01-01T00:00:00Z')

/** Site documents whose makers count their calls. */
function counted(earlier: ReadonlyMap<string, Representation> | undefined, feedBody = '<rss/>') {
  const calls = {documents: 0, feed: 0}
  const options: SiteDocumentsOptions = {
    documents: () => {
      calls.documents++
      return [{path: '/llms.txt', body: 'קטלוג', contentType: TEXT}]
    },
    feed: {
      path: '/feed.xml',
      build: () => {
        calls.feed++
        return {path: '/feed.xml', body: feedBody, contentType: 'application/rss+xml'}
      },
    },
    keying: undefined,
    earlier,
    builtAt,
    contentLastModified,
  }
  return {site: siteDocumentsOnFirstUse(options), calls}
}

const earlierOf = (entries: Record<string, string>) =>
  new Map(Object.entries(entries).map(([path, body]) => [path, represent(body, () => earlierDate)]))

describe('site documents built on first use', () => {
  it("build nothing until asked; until then `built` is the predecessor's, then each part's own", () => {
    const earlier = earlierOf({'/llms.txt': 'ישן', '/feed.xml': '<rss>old</rss>'})
    const {site, calls} = counted(earlier)
    expect(site.built()).toEqual(earlier)
    expect(calls).toEqual({documents: 0, feed: 0})

    expect(site.get('/llms.txt')?.body.toString('utf8')).toBe('קטלוג')
    expect(calls, 'the feed is a part of its own').toEqual({documents: 1, feed: 0})
    expect(site.built()?.get('/llms.txt')?.body.toString('utf8')).toBe('קטלוג')
    expect(site.built()?.get('/feed.xml')?.body.toString('utf8'), "the predecessor's feed until it is built").toBe(
      '<rss>old</rss>',
    )

    expect(site.paths()).toEqual(['/llms.txt', '/feed.xml'])
    expect(site.built()?.get('/feed.xml')?.body.toString('utf8')).toBe('<rss/>')
    site.get('/feed.xml')
    site.get('/llms.txt')
    expect(calls, 'each part built once').toEqual({documents: 1, feed: 1})
  })

  it("keep the predecessor's date where the bytes did not change, and date the rest by the build", () => {
    const {site} = counted(earlierOf({'/llms.txt': 'קטלוג', '/feed.xml': '<rss>old</rss>'}))
    expect(site.get('/llms.txt')?.lastModified).toEqual(earlierDate)
    expect(site.get('/feed.xml')?.lastModified).toEqual(builtAt)
    const {site: fresh} = counted(undefined)
    expect(fresh.get('/llms.txt')?.lastModified, 'no predecessor: the content dates it').toEqual(contentLastModified)
  })

  it("keep the predecessor's document itself, with the variants it compressed, where bytes and headers did not change", () => {
    const same = represent('קטלוג', () => earlierDate, {contentType: TEXT})
    const {site} = counted(new Map([['/llms.txt', same]]))
    expect(site.get('/llms.txt')).toBe(same)
    const otherType = represent('קטלוג', () => earlierDate)
    const {site: retyped} = counted(new Map([['/llms.txt', otherType]]))
    expect(retyped.get('/llms.txt')).not.toBe(otherType)
    expect(retyped.get('/llms.txt')?.contentType).toBe(TEXT)
    const otherHeaders = represent('קטלוג', () => earlierDate, {contentType: TEXT, headers: {Link: '<x>'}})
    expect(counted(new Map([['/llms.txt', otherHeaders]])).site.get('/llms.txt')?.headers).toEqual({})
  })

  it("let go of the predecessor's documents once both parts are built", async () => {
    // Made in a function of its own, so that nothing in this test's scope holds the map.
    const make = () => {
      const earlier = earlierOf({'/llms.txt': 'ישן', '/feed.xml': '<rss>old</rss>'})
      return {reference: new WeakRef(earlier), ...counted(earlier)}
    }
    const {reference, site} = make()
    site.paths()
    await collectGarbage()
    expect(reference.deref()).toBeUndefined()
    expect(site.built()?.size).toBe(2)
  })

  it('keep what the makers left out when no one is told of it as it happens', () => {
    const site = siteDocumentsOnFirstUse({
      documents: (leftOut) => {
        leftOut({documentId: 'episode-1', reason: 'its slug is not a path'})
        return [{path: '/sitemap.xml', body: '<urlset/>', contentType: 'application/xml'}]
      },
      feed: undefined,
      keying: undefined,
      earlier: undefined,
      builtAt,
      contentLastModified,
    })
    expect(site.paths()).toEqual(['/sitemap.xml'])
    expect(site.leftOut()).toEqual([{output: 'sitemaps', documentId: 'episode-1', reason: 'its slug is not a path'}])
  })

  it('have no feed when the maker finds none, and say so in paths', () => {
    const {site, calls} = counted(undefined)
    const none = siteDocumentsOnFirstUse({
      documents: () => [],
      feed: {path: '/feed.xml', build: () => undefined},
      keying: undefined,
      earlier: undefined,
      builtAt,
      contentLastModified,
    })
    expect(none.paths()).toEqual([])
    expect(none.get('/feed.xml')).toBeUndefined()
    expect(none.built()).toEqual(new Map())
    expect(calls).toEqual({documents: 0, feed: 0})
    expect(site.built()).toBeUndefined()
  })
})
