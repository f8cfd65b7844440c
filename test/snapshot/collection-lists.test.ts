// A collection's lists made from the previous snapshot's after a per-document edit: the same
// lists and slug lookups as made whole, with only the changed entries' parts looked up.
import {describe, expect, it} from 'vitest'
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import {listsAfterEdit, listsOf, type CollectionLists, type EntryParts} from '../../server/snapshot/collection-lists.ts'
import {represent} from '../../server/snapshot/representation.ts'
import {MAX_CHANGES} from '../../server/snapshot/slug-index.ts'

type Entry = CatalogEntry<{slug: string}>

const entry = (slug: string): Entry =>
  Object.freeze({value: {slug}, updatedAt: '2025-01-01T00:00:00Z', documentId: slug})
const parts = new WeakMap<Entry, EntryParts>()
let lookedUp = 0
const partOf = (item: Entry): EntryParts => {
  lookedUp++
  let part = parts.get(item)
  if (!part) {
    const representation = represent(`{"data":${JSON.stringify(item.value)}}`, () => new Date(0))
    parts.set(item, (part = {representation, json: representation.body, key: ['', item.value.slug]}))
  }
  return part
}

/** What a client sees: every slug's item, the order, and slugs no longer served. */
function served(lists: CollectionLists, gone: readonly string[]) {
  return {
    order: lists.keys.map((key) => key[1]),
    items: lists.items.map((json) => json.toString()),
    bySlug: lists.keys.map((key) => lists.bySlug.get(key[1])?.body.toString()),
    gone: gone.map((slug) => lists.bySlug.get(slug)),
    representations: lists.representations.map((representation) => representation.etag),
  }
}

describe('lists after an edit', () => {
  const start = Array.from({length: 500}, (_, index) => entry(`item-${index}`))

  it('serve what lists made whole serve, looking up parts for the changed entries only', () => {
    let entries = start
    let lists = listsOf(entries, partOf)
    const edits: ((list: readonly Entry[]) => {next: Entry[]; gone: string[]})[] = [
      // changed in place
      (list) => ({next: list.with(250, entry('item-250')), gone: []}),
      // moved: out of one place, into another far away
      (list) => ({next: list.toSpliced(100, 1).toSpliced(400, 0, entry('item-100')), gone: []}),
      // inserted, and removed
      (list) => ({next: list.toSpliced(3, 0, entry('new-1')), gone: []}),
      (list) => ({next: list.toSpliced(450, 1), gone: [list[450]?.value.slug ?? '']}),
      // a few at once, at the ends too
      (list) => ({
        next: [entry('first'), ...list.slice(0, 10), ...list.slice(12).with(300, entry('other')), entry('last')],
        gone: [list[10]?.value.slug ?? '', list[11]?.value.slug ?? '', list[312]?.value.slug ?? ''],
      }),
    ]
    for (const edit of edits) {
      const {next, gone} = edit(entries)
      const changed = next.filter((item) => !entries.includes(item)).length
      lookedUp = 0
      const after = listsAfterEdit(lists, next, partOf)
      expect(lookedUp, 'parts looked up for the changed entries only').toBe(changed)
      expect(after).toBeDefined()
      if (!after) return
      expect(served(after, gone)).toEqual(served(listsOf(next, partOf), gone))
      expect(gone.every((slug) => after.bySlug.get(slug) === undefined)).toBe(true)
      entries = next
      lists = after
    }
  })

  it('are made whole when most entries changed (a full re-read) or the index carries too many changes', () => {
    const lists = listsOf(start, partOf)
    expect(
      listsAfterEdit(
        lists,
        start.map((item) => entry(item.value.slug)),
        partOf,
      ),
    ).toBeUndefined()
    let carried: CollectionLists | undefined = lists
    let entries = start
    for (let round = 0; carried && round <= MAX_CHANGES; round++) {
      entries = entries.toSpliced(round, 0, entry(`added-${round}`))
      carried = listsAfterEdit(carried, entries, partOf)
    }
    expect(carried, 'an index past MAX_CHANGES changes is not carried further').toBeUndefined()
  })
})
