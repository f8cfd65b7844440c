// How an edit's lists are walked from the previous ones: which slugs the edit touched (what a build
// purges and re-indexes), which parts were looked up again, where the walk gives up and the lists
// are made whole, and previous lists that are not of one length.
import {describe, expect, it} from 'vitest'
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import {listsAfterEdit, listsOf, type EntryParts} from '../../server/snapshot/collection-lists.ts'
import {represent} from '../../server/snapshot/representation.ts'

type Entry = CatalogEntry<{slug: string}>

const entry = (slug: string): Entry =>
  Object.freeze({value: {slug}, updatedAt: '2025-01-01T00:00:00Z', documentId: slug})
let lookedUp: string[] = []
const parts = new WeakMap<Entry, EntryParts>()
const partOf = (item: Entry): EntryParts => {
  lookedUp.push(item.value.slug)
  let part = parts.get(item)
  if (!part) {
    const representation = represent(`{"data":${JSON.stringify(item.value)}}`, () => new Date(0))
    parts.set(item, (part = {representation, json: representation.body, key: ['', item.value.slug]}))
  }
  return part
}
const entries = (count: number, prefix = 'item') =>
  Array.from({length: count}, (_, index) => entry(`${prefix}-${index}`))

/** The edit's lists from `before` to `after`: the slugs it touched, the parts looked up, the order served. */
function edit(before: readonly Entry[], after: readonly Entry[]) {
  const lists = listsOf(before, partOf)
  lookedUp = []
  const next = listsAfterEdit(lists, after, partOf)
  return {
    slugs: next?.edit?.slugs,
    from: next?.edit?.from === lists.id,
    lookedUp,
    order: next?.keys.map((key) => key[1]),
  }
}

describe('an edit walked from the previous lists', () => {
  it('touches only an entry that moved ahead by less than the lookahead', () => {
    const [p, q, x, r] = ['p', 'q', 'x', 'r'].map(entry) as [Entry, Entry, Entry, Entry]
    expect(edit([p, q, x, r], [x, p, q, r])).toEqual({
      slugs: ['x'],
      from: true,
      lookedUp: ['x'],
      order: ['x', 'p', 'q', 'r'],
    })
  })

  it('touches only the first of two entries that swapped places', () => {
    const [p, q, r] = ['p', 'q', 'r'].map(entry) as [Entry, Entry, Entry]
    expect(edit([p, q, r], [q, p, r])).toEqual({slugs: ['p'], from: true, lookedUp: ['p'], order: ['q', 'p', 'r']})
  })

  it('takes sixteen entries inserted at once (the lookahead) as inserted', () => {
    const before = entries(100)
    const inserted = entries(16, 'new')
    const result = edit(before, [...before.slice(0, 10), ...inserted, ...before.slice(10)])
    expect(result.slugs).toEqual(inserted.map((item) => item.value.slug))
    expect(result.lookedUp).toEqual(inserted.map((item) => item.value.slug))
  })

  it('walks 64 changed entries, and makes the lists whole past 64', () => {
    const before = entries(200)
    // Each entry changed in place counts twice: its slug removed, and added.
    const changed = before.map((item, index) => (index < 32 ? entry(item.value.slug) : item))
    const walked = edit(before, changed)
    expect(walked.slugs).toEqual(before.slice(0, 32).map((item) => item.value.slug))
    expect(walked.order).toEqual(before.map((item) => item.value.slug))
    // One more: the last entry removed, found only once every entry was walked.
    expect(edit(before, changed.slice(0, -1)).slugs).toBeUndefined()
  })

  it('refuses previous lists that are not of one length', () => {
    const before = entries(3)
    for (const cut of ['items', 'representations', 'keys'] as const) {
      const lists = listsOf(before, partOf)
      const shorter = {...lists, [cut]: lists[cut].slice(0, -1)}
      expect(() => listsAfterEdit(shorter, before, partOf), cut).toThrow('the previous lists are not of one length')
    }
  })
})
