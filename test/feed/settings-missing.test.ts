// The feed when the podcast settings document is gone: with a good channel held from before, the
// feed is served with it and its items follow the episodes; with none, /feed.xml's 503 says what
// to publish. No sockets: the catalog mapping and the feed's writer.
import {describe, expect, it} from 'vitest'
import {mapCatalog} from '../../catalog/v1/catalog.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {CATALOG_QUERY} from '../../catalog/queries.ts'
import {buildFeed, feedUnavailableDetail} from '../../server/feed/rss-feed.ts'
import {episode} from '../fixtures/documents.ts'
import {fetchFrom, settings, settingsRow} from '../helpers/catalog-mapping.ts'

const feedSettings = {selfUrl: 'https://site.test/feed.xml', siteUrl: 'https://site.test'}
const withAudio = (id: string, publishedAt: string) =>
  episode(id, {publishedAt, audioUrl: `https://media.test/${id}.mp3`, audioLength: 1000, audioType: 'audio/mpeg'})
const rowsOf = async (documents: SanityDocument[], podcast: unknown) => ({
  ...((await fetchFrom(documents, CATALOG_QUERY)) as object),
  podcast,
})
const textOf = (feed: ReturnType<typeof buildFeed>) => feed?.body.toString('utf8') ?? ''

describe('the feed after the settings document is deleted', () => {
  it('keeps the last good channel, byte for byte, with items that still follow the episodes', async () => {
    const episodes = [withAudio('ep-1', '2025-01-01')]
    const previous = mapCatalog(await rowsOf(episodes, settingsRow()), settings)
    const before = buildFeed(previous, feedSettings)
    const deleted = mapCatalog(await rowsOf(episodes, null), settings, previous)
    const held = buildFeed(deleted, feedSettings)
    expect(held?.etag).toBe(before?.etag)
    expect(textOf(held)).toBe(textOf(before))
    expect(feedUnavailableDetail(deleted)).toBeUndefined()

    const more = mapCatalog(await rowsOf([...episodes, withAudio('ep-2', '2025-02-01')], null), settings, deleted)
    const xml = textOf(buildFeed(more, feedSettings))
    expect(xml).toContain('<title>Code Talks</title>')
    expect(xml.match(/<guid isPermaLink="false">[^<]*<\/guid>/g)).toEqual([
      '<guid isPermaLink="false">ep-2</guid>',
      '<guid isPermaLink="false">ep-1</guid>',
    ])
  })
})

describe('the feed with no settings document and no channel before', () => {
  it('is unavailable, and the reason names the document type and its required fields', async () => {
    const catalog = mapCatalog(await rowsOf([withAudio('ep-1', '2025-01-01')], null), settings)
    expect(buildFeed(catalog, feedSettings)).toBeUndefined()
    const detail = feedUnavailableDetail(catalog)
    expect(detail).toMatch(/no podcast settings document/)
    expect(detail).toContain('podcastSettings')
    for (const field of ['title', 'description', 'author', 'owner', 'artwork', 'categor', 'copyright'])
      expect(detail).toContain(field)
  })
})
