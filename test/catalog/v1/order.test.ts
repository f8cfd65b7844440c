import {describe, expect, it} from 'vitest'
import {episodeOrder, meetupOrder, voiceOrder, type ListOrder, type SortKey} from '../../../catalog/v1/order.ts'
import {loadConfig} from '../../../server/config.ts'
import {createEmbeddedFileSource} from '../../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../../server/catalog-builder.ts'
import {SAMPLE_DATASET} from '../../../support/server.ts'

const sorted = (order: Pick<ListOrder<unknown>, 'compare'>, keys: readonly SortKey[]) => [...keys].sort(order.compare)

describe('voices: a Hebrew collator on the name, then the slug', () => {
  it('puts a name with a geresh (ג׳) where a Hebrew reader looks for it, not after גל as code points do', () => {
    const keys: SortKey[] = [
      ['גל כהן', 'gal-cohen'],
      ['ג׳ורג׳ לוי', 'george-levi'],
      ['גבי אורן', 'gabi-oren'],
    ]
    expect(sorted(voiceOrder, keys).map(([name]) => name)).toEqual(['ג׳ורג׳ לוי', 'גבי אורן', 'גל כהן'])
    expect(
      [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name]) => name),
      'what GROQ order() gives',
    ).toEqual(['גבי אורן', 'גל כהן', 'ג׳ורג׳ לוי'])
  })

  it('orders geresh names among themselves, and Hebrew letters as the alphabet does', () => {
    expect(
      sorted(voiceOrder, [
        ['ג׳ורג׳', 'b'],
        ['ג׳ון', 'a'],
      ]).map(([name]) => name),
    ).toEqual(['ג׳ון', 'ג׳ורג׳'])
    expect(
      sorted(voiceOrder, [
        ['צביקה', 'b'],
        ['צ׳רלי', 'a'],
      ]).map(([name]) => name),
    ).toEqual(['צ׳רלי', 'צביקה'])
    expect(
      sorted(voiceOrder, [
        ['תמר', 'c'],
        ['אבי', 'a'],
        ['מיכל', 'b'],
      ]).map(([name]) => name),
    ).toEqual(['אבי', 'מיכל', 'תמר'])
    expect(
      sorted(voiceOrder, [
        ['גלית', 'b'],
        ['גל', 'a'],
      ]).map(([name]) => name),
      'a prefix first',
    ).toEqual(['גל', 'גלית'])
  })

  it('breaks a tie of names by slug, in code point order, and a key equals itself', () => {
    expect(
      sorted(voiceOrder, [
        ['נועה לוי', 'noa-levi-b'],
        ['נועה לוי', 'noa-levi-a'],
        ['נועה לוי', 'noa-levi-10'],
      ]),
    ).toEqual([
      ['נועה לוי', 'noa-levi-10'],
      ['נועה לוי', 'noa-levi-a'],
      ['נועה לוי', 'noa-levi-b'],
    ])
    expect(voiceOrder.compare(['נועה', 'noa'], ['נועה', 'noa'])).toBe(0)
  })

  it('puts Hebrew names before Latin ones, as the Hebrew locale does', () => {
    expect(
      sorted(voiceOrder, [
        ['Dana Cohen', 'dana-cohen'],
        ['דנה כהן', 'dana-cohen-he'],
      ]).map(([name]) => name),
    ).toEqual(['דנה כהן', 'Dana Cohen'])
  })
})

describe('episodes and meetups: newest first, then the slug', () => {
  it.each([
    ['episodes', episodeOrder],
    ['meetups', meetupOrder],
  ] as const)('%s', (_name, order) => {
    const keys: SortKey[] = [
      ['2025-01-01', 'ep-1-old'],
      ['2026-03-01', 'ep-2-b'],
      ['2026-03-01', 'ep-10-a'],
      ['2026-03-01', 'ep-2-a'],
      ['2026-11-23', 'ep-30-new'],
    ]
    expect(sorted(order, keys)).toEqual([
      ['2026-11-23', 'ep-30-new'],
      // A tie of dates: slugs ascending by code point, so "ep-10" before "ep-2".
      ['2026-03-01', 'ep-10-a'],
      ['2026-03-01', 'ep-2-a'],
      ['2026-03-01', 'ep-2-b'],
      ['2025-01-01', 'ep-1-old'],
    ])
    expect(order.compare(['2026-03-01', 'x'], ['2026-03-01', 'x'])).toBe(0)
  })
})

describe('the sample catalog', () => {
  it('is served in these orders, keys taken from the items', async () => {
    const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})
    const {catalog} = await catalogSnapshotBuilder({
      source: createEmbeddedFileSource(SAMPLE_DATASET),
      config,
      clock: () => new Date(),
    })(undefined, {kind: 'all'})
    const voices = catalog.voices.map(({value}) => voiceOrder.key(value))
    expect(voices).toEqual(sorted(voiceOrder, voices))
    expect(
      voices.some(([name]) => name.includes('׳')),
      'the sample has a geresh name',
    ).toBe(true)
    const episodes = catalog.episodes.map(({value}) => episodeOrder.key(value))
    expect(episodes).toEqual(sorted(episodeOrder, episodes))
    const meetups = catalog.meetups.map(({value}) => meetupOrder.key(value))
    expect(meetups).toEqual(sorted(meetupOrder, meetups))
  })
})
