// What the outputs left out, per snapshot, and logged once however many snapshots leave it out again.
import {describe, expect, it} from 'vitest'
import {createLeftOutItems, type LeftOutItem} from '../server/left-out-items.ts'
import type {Snapshot} from '../server/snapshot/snapshot.ts'

// Only the identity of a snapshot matters here: it is a WeakMap key.
const snapshot = (): Snapshot => Object.freeze({}) as unknown as Snapshot

describe('items the outputs left out', () => {
  it('are kept per snapshot, and each is logged once while it keeps being left out', () => {
    const logged: LeftOutItem[] = []
    const items = createLeftOutItems((item) => logged.push(item))
    const [first, second] = [snapshot(), snapshot()]
    const item = {documentId: 'episode-7', reason: 'its item could not be written'}
    items.record(first, '/feed.xml', item)
    items.record(first, '/feed.xml', item)
    items.record(second, '/feed.xml', item)
    items.record(second, 'sitemaps', item)
    expect(items.of(first)).toEqual([{output: '/feed.xml', ...item}])
    expect(items.of(second)).toEqual([
      {output: '/feed.xml', ...item},
      {output: 'sitemaps', ...item},
    ])
    expect(items.of(snapshot())).toEqual([])
    expect(logged).toEqual([
      {output: '/feed.xml', ...item},
      {output: 'sitemaps', ...item},
    ])
  })
})
