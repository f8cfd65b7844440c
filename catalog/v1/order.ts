import type {Episode, Meetup, Voice} from './contract.ts'

/** The sort key of one list item; the cursor of a page is the key of its last item. */
export type SortKey = readonly [string, string]

export interface ListOrder<Item> {
  key: (item: Item) => SortKey
  compare: (a: SortKey, b: SortKey) => number
}

/** Strings by code point, as GROQ's order() compares them; document ids break ties this way too. */
export const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The first index of `sorted` whose entry does not satisfy `before`, which must hold for a prefix of it. */
export function firstIndexNotBefore<Entry>(sorted: readonly Entry[], before: (entry: Entry) => boolean): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const entry = sorted[middle]
    if (entry !== undefined && before(entry)) low = middle + 1
    else high = middle
  }
  return low
}

/** Newest first; the slug breaks ties, as `order(date desc, slug.current asc)` does in GROQ. */
const newestFirst = {
  key: (item: {published_date: string; slug: string}): SortKey => [item.published_date, item.slug],
  compare: (a: SortKey, b: SortKey) => byCodePoint(b[0], a[0]) || byCodePoint(a[1], b[1]),
}

/**
 * Latest release first; the slug breaks ties. `published_at` is UTC in one fixed form, so its text
 * sorts as its instant does. The feed's items follow this order too.
 */
export const episodeOrder: ListOrder<Episode> = {
  key: (episode) => [episode.published_at, episode.slug],
  compare: newestFirst.compare,
}
export const meetupOrder: ListOrder<Meetup> = newestFirst

// GROQ's order() compares code points, which sorts ג׳ after גל; a Hebrew collator does not.
const hebrew = new Intl.Collator('he')
export const voiceOrder: ListOrder<Voice> = {
  key: (voice) => [voice.name, voice.slug],
  compare: (a, b) => hebrew.compare(a[0], b[0]) || byCodePoint(a[1], b[1]),
}
