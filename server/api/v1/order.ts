import type {Episode, Meetup, Voice} from './contract.ts'

/** The sort key of one list item; the cursor of a page is the key of its last item. */
export type SortKey = readonly [string, string]

export interface ListOrder<Item> {
  key: (item: Item) => SortKey
  compare: (a: SortKey, b: SortKey) => number
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Newest first; the slug breaks ties, as `order(date desc, slug.current asc)` does in GROQ. */
const newestFirst = {
  key: (item: {published_date: string; slug: string}): SortKey => [item.published_date, item.slug],
  compare: (a: SortKey, b: SortKey) => byCodePoint(b[0], a[0]) || byCodePoint(a[1], b[1]),
}

export const episodeOrder: ListOrder<Episode> = newestFirst
export const meetupOrder: ListOrder<Meetup> = newestFirst

// GROQ's order() compares code points, which sorts ג׳ after גל; a Hebrew collator does not.
const hebrew = new Intl.Collator('he')
export const voiceOrder: ListOrder<Voice> = {
  key: (voice) => [voice.name, voice.slug],
  compare: (a, b) => hebrew.compare(a[0], b[0]) || byCodePoint(a[1], b[1]),
}
