// The change feed's history: what a token reads, each item once with its ETag as of the token,
// the bounds that keep it small, and a saved history read back.
import {describe, expect, it} from 'vitest'
import {ChangeHistory, HISTORY_MIN_AGE_MS, HISTORY_MIN_VERSIONS} from '../../server/snapshot/change-history.ts'

const DAY = 24 * 60 * 60 * 1000
const edit = (slug: string, before: string | null) => ({collection: 'episodes' as const, slug, before})

describe('the change history', () => {
  it('answers a token with every item changed after it, once, with the ETag it had at the token', () => {
    const history = ChangeHistory.startingAt('v0')
      .after('v1', 1, [edit('a', '"a0"')])
      .after('v2', 2, [edit('a', '"a1"'), edit('b', null)])
      .after('v3', 3, [{collection: 'voices', slug: 'dana', before: '"d0"'}])
    expect(history.head).toBe('v3')
    expect([...(history.since('v0')?.values() ?? [])]).toEqual([
      edit('a', '"a0"'),
      edit('b', null),
      {collection: 'voices', slug: 'dana', before: '"d0"'},
    ])
    expect([...(history.since('v2')?.keys() ?? [])]).toEqual(['voices/dana'])
    expect(history.since('v3')?.size).toBe(0)
    expect(history.since('never-served')).toBeUndefined()
    for (const token of ['v0', 'v2', 'v3', 'never-served'])
      expect(history.holds(token)).toBe(history.since(token) !== undefined)
  })

  it('records nothing for a version already at its head', () => {
    const history = ChangeHistory.startingAt('v0').after('v1', 1, [edit('a', null)])
    expect(history.after('v1', 2, [edit('b', null)])).toBe(history)
  })

  it('keeps every version of the last 30 days and at least the last 1,000, forgetting older tokens', () => {
    let history = ChangeHistory.startingAt('v0')
    const start = Date.UTC(2026, 0, 1)
    for (let index = 1; index <= HISTORY_MIN_VERSIONS + 10; index++)
      history = history.after(`v${index}`, start + index, [edit('a', `"${index - 1}"`)])
    // All within 30 days: none forgotten.
    expect(history.since('v0')).toBeDefined()
    // Forty days later, one more version: only the last 1,000 are kept.
    history = history.after('late', start + 40 * DAY, [edit('a', null)])
    expect(history.entries).toHaveLength(HISTORY_MIN_VERSIONS)
    expect(history.since('v10')).toBeUndefined()
    expect(history.since('v11')).toBeDefined() // the base: the oldest token still answered
    expect(history.base).toBe('v11')
    expect(HISTORY_MIN_AGE_MS).toBe(30 * DAY)
  })

  it('is bounded in item changes however few the versions', () => {
    let history = ChangeHistory.startingAt('v0')
    const everything = Array.from({length: 150_000}, (_, index) => edit(`e-${index}`, null))
    history = history.after('v1', 1, everything).after('v2', 2, everything)
    expect(history.since('v0')).toBeUndefined()
    expect(history.since('v1')?.size).toBe(150_000)
  })

  it('reads back what it saved, and refuses what is not a history', () => {
    const history = ChangeHistory.startingAt('v0').after('v1', 5, [edit('a', '"a0"')])
    const restored = ChangeHistory.restored(JSON.parse(JSON.stringify(history)))
    expect(restored?.head).toBe('v1')
    expect([...(restored?.since('v0')?.values() ?? [])]).toEqual([edit('a', '"a0"')])
    expect(ChangeHistory.restored({base: 1})).toBeUndefined()
    expect(ChangeHistory.restored(undefined)).toBeUndefined()
  })
})
