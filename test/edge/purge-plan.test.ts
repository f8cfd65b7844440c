// planPurge over snapshots built with buildSnapshot: which site documents an edit purges, and
// what the plan builds to know it (a feed's first render is seconds of work at 100k documents).
import {beforeAll, describe, expect, it} from 'vitest'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import {planPurge} from '../../server/edge/purge-plan.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {createSurrogateKeying} from '../../server/snapshot/surrogate-keys.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {settingsDocument} from '../helpers/catalog-mapping.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const keying = createSurrogateKeying('varnish')

let feedBuilds = 0
let siteBuilds = 0
const settings = snapshotSettings({
  keying,
  // llms.txt changes with the counts only; the feed with any content.
  site: (snapshot) => {
    siteBuilds += 1
    return [{path: '/llms.txt', body: `${snapshot.counts.episodes} episodes`, contentType: 'text/plain; charset=utf-8'}]
  },
  feed: {
    path: '/feed.xml',
    build: (snapshot) => {
      feedBuilds += 1
      return {path: '/feed.xml', body: `<rss>${snapshot.version}</rss>`, contentType: 'application/rss+xml'}
    },
  },
})

let before: Catalog
let retitled: Catalog
let withSettings: Catalog
beforeAll(async () => {
  const documents = [
    voice('dana'),
    episode('ep-1', {publishedAt: '2025-01-01'}),
    episode('ep-2', {publishedAt: '2025-02-01'}),
  ]
  before = await catalogOf(documents)
  withSettings = await catalogOf([settingsDocument, ...documents])
  retitled = await catalogOf(
    documents.map((document) => (document._id === 'ep-2' ? {...document, title: 'כותרת חדשה'} : document)),
  )
})

describe('the items an edit purges', () => {
  it('are found among the slugs the edit touched, and are those a comparison of every item finds', async () => {
    const previous = buildSnapshot(before, settings, undefined, NOW)
    // A per-document build: the catalog keeps every entry but the edited one.
    const changed = retitled.episodes.find((entry) => entry.value.slug === 'ep-2')
    if (!changed) throw new Error('the fixture has no ep-2')
    const edited = {
      ...before,
      episodes: before.episodes.map((entry) => (entry.value.slug === 'ep-2' ? changed : entry)),
    }
    const next = buildSnapshot(edited, settings, previous, NOW)
    expect([...next.slugsToCompare('episodes', previous)]).toEqual(['ep-2'])
    expect([...next.slugsToCompare('voices', previous)]).toEqual([])
    // A whole read makes every entry anew: every slug of both is compared.
    const wholeRead = buildSnapshot(retitled, settings, previous, NOW)
    expect(new Set(wholeRead.slugsToCompare('episodes', previous))).toEqual(new Set(['ep-1', 'ep-2']))
    expect(planPurge(previous, next, keying).sort()).toEqual(planPurge(previous, wholeRead, keying).sort())
    expect(planPurge(previous, next, keying)).toContain('episodes/ep-2')
    // An episode added by an edit is compared too (its item is new at the edge's address).
    const added = (await catalogOf([voice('dana'), episode('ep-3', {publishedAt: '2025-03-01'})])).episodes.find(
      (entry) => entry.value.slug === 'ep-3',
    )
    if (!added) throw new Error('the fixture has no ep-3')
    const withAdded = buildSnapshot({...before, episodes: [added, ...before.episodes]}, settings, previous, NOW)
    expect([...withAdded.slugsToCompare('episodes', previous)]).toEqual(['ep-3'])
    expect(planPurge(previous, withAdded, keying)).toContain('episodes/ep-3')
    // Two edits on: the lists were not made from the first snapshot's, so every slug is compared.
    const later = buildSnapshot({...edited, episodes: edited.episodes.slice(0, 1)}, settings, next, NOW)
    expect(new Set(later.slugsToCompare('episodes', previous))).toEqual(new Set(['ep-1', 'ep-2']))
  })
})

describe('the site documents an edit purges', () => {
  it('are only those served so far: an edit builds no feed that no client has asked for', () => {
    const previous = buildSnapshot(before, settings, undefined, NOW)
    const next = buildSnapshot(retitled, settings, previous, NOW)
    const built = {feedBuilds, siteBuilds}
    const keys = planPurge(previous, next, keying)
    expect({feedBuilds, siteBuilds}).toEqual(built)
    expect(keys).toContain('episodes/ep-2')
    expect(keys.filter((key) => key.startsWith('site/'))).toEqual([])
  })

  it('once served, each is compared with the next snapshot: a changed one is purged, an unchanged one is not', () => {
    const previous = buildSnapshot(before, settings, undefined, NOW)
    expect(previous.site('/feed.xml')).toBeDefined()
    expect(previous.site('/llms.txt')).toBeDefined()
    const next = buildSnapshot(retitled, settings, previous, NOW)
    const keys = planPurge(previous, next, keying)
    expect(keys).toContain('site/feed.xml')
    expect(keys, 'the counts did not change').not.toContain('site/llms.txt')
  })

  it('across edits, each is compared with the bytes the last plan left at the edge', () => {
    const first = buildSnapshot(before, settings, undefined, NOW)
    expect(first.site('/feed.xml')).toBeDefined()
    const second = buildSnapshot(retitled, settings, first, NOW)
    expect(planPurge(first, second, keying)).toContain('site/feed.xml')
    // Back to the first content: the edge now holds the second snapshot's feed, which differs.
    const third = buildSnapshot(before, settings, second, NOW)
    expect(planPurge(second, third, keying)).toContain('site/feed.xml')
  })

  it('a change of the podcast settings alone (same items, same version) purges the feed it changed', () => {
    const channel = snapshotSettings({
      keying,
      site: () => [],
      feed: {
        path: '/feed.xml',
        build: (snapshot) => ({
          path: '/feed.xml',
          body: `<rss>${snapshot.catalog.podcast?.ok === true ? snapshot.catalog.podcast.channel.title : ''}</rss>`,
          contentType: 'application/rss+xml',
        }),
      },
    })
    const previous = buildSnapshot(withChannelTitle('ערוץ ישן'), channel, undefined, NOW)
    expect(previous.site('/feed.xml')).toBeDefined()
    const next = buildSnapshot(withChannelTitle('ערוץ חדש'), channel, previous, NOW)
    expect(next.version).toBe(previous.version)
    expect(planPurge(previous, next, keying)).toEqual(['site/feed.xml'])
    const same = buildSnapshot(withChannelTitle('ערוץ חדש'), channel, next, NOW)
    expect(planPurge(next, same, keying)).toEqual([])
  })
})

/** The catalog with valid podcast settings whose channel is titled `title`. */
function withChannelTitle(title: string): Catalog {
  const podcast = withSettings.podcast
  if (podcast?.ok !== true) throw new Error('the fixture has no valid podcast settings')
  return {...withSettings, podcast: {...podcast, channel: {...podcast.channel, title}}}
}
