// The Content Lake stand-in's dataset on its own: what the browser test relies on when the Studio
// edits, publishes and deletes, and the refusals a real Content Lake would answer with.
import {describe, expect, it} from 'vitest'
import {
  createLakeDataset,
  TransactionError,
  type Committed,
  type MutationEvent,
} from '../../support/content-lake-dataset.ts'

const voice = {_id: 'voice-1', _type: 'voice', _rev: 'r0', name: 'נועה'}

function lake() {
  const dataset = createLakeDataset([voice], {identity: 'editor'})
  const seen: {committed: Committed; events: MutationEvent[]}[] = []
  dataset.subscribe((committed, events) => void seen.push({committed, events}))
  return {dataset, seen}
}

describe("the Content Lake stand-in's dataset", () => {
  it('starts a draft from the published document on the first edit, and gives it the transaction as its revision', () => {
    const {dataset, seen} = lake()
    dataset.actions('t1', [
      {
        actionType: 'sanity.action.document.edit',
        draftId: 'drafts.voice-1',
        publishedId: 'voice-1',
        patch: {set: {name: 'נועה כהן'}},
      },
    ])
    expect(dataset.get('drafts.voice-1')).toMatchObject({
      _id: 'drafts.voice-1',
      _type: 'voice',
      _rev: 't1',
      name: 'נועה כהן',
    })
    expect(dataset.get('voice-1')?.name).toBe('נועה')
    const [event] = seen[0]?.events ?? []
    expect(event).toMatchObject({
      documentId: 'drafts.voice-1',
      transition: 'appear',
      previousRev: undefined,
      resultRev: 't1',
      transactionTotalEvents: 1,
    })
    expect(event?.effects.apply).toEqual([0, expect.objectContaining({name: 'נועה כהן'})])
  })

  it('publishes a draft over its published document in one transaction of two events', () => {
    const {dataset, seen} = lake()
    dataset.actions('t1', [
      {
        actionType: 'sanity.action.document.edit',
        draftId: 'drafts.voice-1',
        publishedId: 'voice-1',
        patch: {set: {name: 'נועה כהן'}},
      },
    ])
    dataset.actions('t2', [
      {actionType: 'sanity.action.document.publish', draftId: 'drafts.voice-1', publishedId: 'voice-1'},
    ])
    expect(dataset.get('drafts.voice-1')).toBeUndefined()
    expect(dataset.get('voice-1')).toMatchObject({name: 'נועה כהן', _rev: 't2'})
    expect(seen[1]?.events.map((event) => [event.documentId, event.transition, event.previousRev])).toEqual([
      ['voice-1', 'update', 'r0'],
      ['drafts.voice-1', 'disappear', 't1'],
    ])
    expect(dataset.all().map((document) => document._id)).toEqual(['voice-1'])
  })

  it('deletes a document with its draft, and answers a second delete with nothing to change', () => {
    const {dataset, seen} = lake()
    dataset.actions('t1', [
      {
        actionType: 'sanity.action.document.edit',
        draftId: 'drafts.voice-1',
        publishedId: 'voice-1',
        patch: {set: {name: 'x'}},
      },
    ])
    dataset.actions('t2', [{actionType: 'sanity.action.document.delete', publishedId: 'voice-1', includeDrafts: []}])
    expect(dataset.all()).toEqual([])
    dataset.actions('t3', [{actionType: 'sanity.action.document.delete', publishedId: 'voice-1', includeDrafts: []}])
    expect(seen[2]?.committed.changes).toEqual([])
  })

  it('refuses what the Content Lake refuses, and then changes nothing', () => {
    const {dataset, seen} = lake()
    const refusal = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return error instanceof TransactionError ? error.status : 'not a refusal'
      }
      return 'accepted'
    }
    expect(
      refusal(() =>
        dataset.actions('t1', [
          {actionType: 'sanity.action.document.publish', draftId: 'drafts.voice-1', publishedId: 'voice-1'},
        ]),
      ),
    ).toBe(409)
    expect(
      refusal(() =>
        dataset.actions('t2', [
          {
            actionType: 'sanity.action.document.create',
            publishedId: 'voice-1',
            attributes: {_id: 'voice-1', _type: 'voice'},
            ifExists: 'fail',
          },
        ]),
      ),
    ).toBe(409)
    expect(
      refusal(() => dataset.mutate('t3', [{patch: {id: 'voice-1', ifRevisionID: 'stale', set: {name: 'x'}}}])),
    ).toBe(409)
    // A transaction is all or nothing: the first mutation is not kept when the second is refused.
    expect(
      refusal(() =>
        dataset.mutate('t4', [
          {createOrReplace: {_id: 'voice-2', _type: 'voice'}},
          {patch: {id: 'missing', set: {name: 'x'}}},
        ]),
      ),
    ).toBe(409)
    expect(dataset.all()).toEqual([voice])
    expect(seen).toEqual([])
  })

  it('applies the Mutations API and says which documents each mutation touched', () => {
    const {dataset} = lake()
    const {ids} = dataset.mutate('t1', [
      {create: {_id: 'voice-2', _type: 'voice', name: 'דן'}},
      {patch: {id: 'voice-2', set: {role: 'Engineer'}}},
      {delete: {id: 'voice-1'}},
    ])
    expect(ids).toEqual(['voice-2', 'voice-2', 'voice-1'])
    expect(dataset.all()).toEqual([expect.objectContaining({_id: 'voice-2', name: 'דן', role: 'Engineer', _rev: 't1'})])
  })
})
