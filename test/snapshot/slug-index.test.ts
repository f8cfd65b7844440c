// A collection's items by slug, carried across edits beside a shared Map up to MAX_CHANGES changes.
import {describe, expect, it} from 'vitest'
import {represent} from '../../server/snapshot/representation.ts'
import {MAX_CHANGES, SlugIndex} from '../../server/snapshot/slug-index.ts'

const item = (slug: string) => represent(`{"data":{"slug":"${slug}"}}`, () => new Date(0))
const slugs = (count: number) => Array.from({length: count}, (_, index) => `slug-${index}`)

describe('a slug index', () => {
  it('serves removed slugs as gone and added ones, a slug both removed and added as added', () => {
    const kept = item('kept')
    const index = SlugIndex.of([
      ['kept', kept],
      ['gone', item('gone')],
      ['changed', item('changed')],
    ])
    const changed = item('changed')
    const next = index.with(['gone', 'changed'], [['changed', changed]])
    expect(next?.get('kept')).toBe(kept)
    expect(next?.get('gone')).toBeUndefined()
    expect(next?.get('changed')).toBe(changed)
  })

  it(`carries up to ${MAX_CHANGES} changes, counting those it carries already`, () => {
    const index = SlugIndex.of([])
    expect(index.with(slugs(MAX_CHANGES), [])).toBeDefined()
    expect(index.with(slugs(MAX_CHANGES + 1), [])).toBeUndefined()
    const one = index.with([], [['one', item('one')]])
    expect(one?.with(slugs(MAX_CHANGES - 1), [])).toBeDefined()
    expect(one?.with(slugs(MAX_CHANGES), [])).toBeUndefined()
    expect(
      one?.with(
        [],
        slugs(MAX_CHANGES).map((slug) => [slug, item(slug)] as const),
      ),
    ).toBeUndefined()
  })
})
