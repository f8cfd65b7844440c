// Tokens across replicas: another replica's steps lead from a token this replica never served to a
// version its own history holds. No sockets (the Redis fan-out is tested with two replicas).
import {describe, expect, it} from 'vitest'
import {ChangeHistory} from '../../server/snapshot/change-history.ts'
import {SharedHistory} from '../../server/snapshot/shared-history.ts'

const edit = (slug: string, before: string | null) => ({collection: 'episodes' as const, slug, before})

describe('a history shared between replicas', () => {
  // Replica A served v1 (a edited), then v2 (b edited); replica B built both edits as one: v0 -> v2.
  const shared = new SharedHistory()
  shared.record({from: 'v0', to: 'v1', items: [edit('a', '"a0"')]})
  shared.record({from: 'v1', to: 'v2', items: [edit('b', '"b0"')]})
  const onB = ChangeHistory.startingAt('v0', shared)
    .after('v2', 2, [edit('a', '"a0"'), edit('b', '"b0"')])
    .after('v3', 3, [edit('c', null)])

  it('answers a token only another replica gave out, with the items changed since it on the way and here', () => {
    expect([...(onB.since('v1')?.values() ?? [])]).toEqual([edit('b', '"b0"'), edit('c', null)])
    // Its own tokens read as before.
    expect([...(onB.since('v2')?.keys() ?? [])]).toEqual(['episodes/c'])
  })

  it('answers a token no step leads from as unknown, and one without sharing as before', () => {
    expect(onB.since('elsewhere')).toBeUndefined()
    expect(onB.sharing(undefined).since('v1')).toBeUndefined()
    expect([onB.holds('v1'), onB.holds('elsewhere'), onB.sharing(undefined).holds('v1')]).toEqual([true, false, false])
  })

  it('keeps the first change of an item along the way, with its ETag as of the token', () => {
    const steps = new SharedHistory()
    steps.record({from: 't', to: 'u', items: [edit('a', '"a-at-t"')]})
    steps.record({from: 'u', to: 'v0', items: [edit('a', '"a-at-u"')]})
    const history = ChangeHistory.startingAt('v0', steps).after('v1', 1, [edit('a', '"a-at-v0"')])
    expect([...(history.since('t')?.values() ?? [])]).toEqual([edit('a', '"a-at-t"')])
  })

  it('stays bounded under a flood of steps, the oldest forgotten first', () => {
    const steps = new SharedHistory()
    for (let index = 0; index < 30_000; index++)
      steps.record({from: `f${index}`, to: `f${index + 1}`, items: [edit('a', null)]})
    // The last 10,000 steps are kept: f20000 on.
    const history = ChangeHistory.startingAt('f25000', steps)
    expect(history.since('f19000')).toBeUndefined()
    expect(history.since('f21000')?.size).toBe(1)
  })
})
