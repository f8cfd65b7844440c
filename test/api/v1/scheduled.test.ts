// Episodes held back until their release time, on a catalog mapped by the server's own query and
// mapping: which are served at an instant, which release next, and the whole catalog back again.
import {describe, expect, it} from 'vitest'
import {nextRelease, releasedAsOf, wholeCatalog} from '../../../server/api/v1/scheduled.ts'
import {episode} from '../../fixtures/documents.ts'
import {catalogOf} from '../../helpers/snapshot-settings.ts'

const catalog = await catalogOf([
  episode('march', {publishedAt: '2026-03-01T10:00:00Z'}),
  episode('feb-b', {publishedAt: '2026-02-01T10:00:00Z'}),
  episode('feb-a', {publishedAt: '2026-02-01T10:00:00Z'}),
  episode('january', {publishedAt: '2026-01-01T10:00:00Z'}),
])
const slugs = (entries: readonly {value: {slug: string}}[] | undefined) => entries?.map((entry) => entry.value.slug)
const at = (instant: string) => new Date(instant)

describe('releasedAsOf', () => {
  it('holds back every episode whose release time is after the instant, and serves the rest', () => {
    const served = releasedAsOf(catalog, at('2026-01-15T00:00:00Z'))
    expect(slugs(served.episodes)).toEqual(['january'])
    expect(slugs(served.scheduled)).toEqual(['march', 'feb-a', 'feb-b'])
  })

  it('serves an episode from its release time exactly, not a millisecond later', () => {
    expect(slugs(releasedAsOf(catalog, at('2026-02-01T09:59:59.999Z')).episodes)).toEqual(['january'])
    expect(slugs(releasedAsOf(catalog, at('2026-02-01T10:00:00.000Z')).episodes)).toEqual(['feb-a', 'feb-b', 'january'])
  })

  it('gives back the very catalog when nothing is held back, and holds nothing back after the last release', () => {
    expect(releasedAsOf(catalog, at('2026-03-01T10:00:00Z'))).toBe(catalog)
    expect(catalog.scheduled ?? []).toEqual([])
  })

  it('releases more of a catalog that already holds some back, at a later instant', () => {
    const early = releasedAsOf(catalog, at('2026-01-15T00:00:00Z'))
    const later = releasedAsOf(early, at('2026-02-15T00:00:00Z'))
    expect(slugs(later.episodes)).toEqual(['feb-a', 'feb-b', 'january'])
    expect(slugs(later.scheduled)).toEqual(['march'])
    expect(slugs(releasedAsOf(later, at('2027-01-01T00:00:00Z')).episodes)).toHaveLength(4)
  })

  it('hands the same served list for the same cut, and a new one for another', () => {
    const first = releasedAsOf(catalog, at('2026-01-15T00:00:00Z'))
    expect(releasedAsOf(catalog, at('2026-01-20T00:00:00Z')).episodes).toBe(first.episodes)
    expect(slugs(releasedAsOf(catalog, at('2026-02-15T00:00:00Z')).episodes)).toEqual(['feb-a', 'feb-b', 'january'])
  })
})

describe('wholeCatalog', () => {
  it('puts the held-back episodes back in front, in order, and nothing scheduled', () => {
    const whole = wholeCatalog(releasedAsOf(catalog, at('2026-01-15T00:00:00Z')))
    expect(slugs(whole.episodes)).toEqual(['march', 'feb-a', 'feb-b', 'january'])
    expect(whole.scheduled).toEqual([])
    expect(wholeCatalog(catalog)).toBe(catalog)
  })
})

describe('nextRelease', () => {
  it('names the earliest held-back time and every episode released then', () => {
    expect(nextRelease(releasedAsOf(catalog, at('2026-01-15T00:00:00Z')))).toEqual({
      at: at('2026-02-01T10:00:00Z'),
      documentIds: ['feb-a', 'feb-b'],
    })
    expect(nextRelease(releasedAsOf(catalog, at('2026-02-15T00:00:00Z')))).toEqual({
      at: at('2026-03-01T10:00:00Z'),
      documentIds: ['march'],
    })
  })

  it('is undefined when nothing is held back', () => {
    expect(nextRelease(catalog)).toBeUndefined()
    expect(nextRelease(releasedAsOf(catalog, at('2027-01-01T00:00:00Z')))).toBeUndefined()
  })
})
