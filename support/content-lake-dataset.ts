import {Mutation} from '@sanity/mutator'
import {z} from 'zod'
import type {SanityDocument} from '../server/content/ndjson.ts'

// The writable dataset behind the Content Lake stand-in: documents with revisions, the Actions API
// and the Mutations API as Sanity documents them (each request one transaction whose id is every
// changed document's new `_rev`), and the listener events a Studio reads back. Patches are applied
// by @sanity/mutator, the Studio's own patch engine.

const record = z.record(z.string(), z.unknown())
const patchOperations = z.object({
  set: record.optional(),
  setIfMissing: record.optional(),
  merge: record.optional(),
  diffMatchPatch: z.record(z.string(), z.string()).optional(),
  unset: z.array(z.string()).optional(),
  inc: z.record(z.string(), z.number()).optional(),
  dec: z.record(z.string(), z.number()).optional(),
  insert: z
    .union([
      z.object({before: z.string(), items: z.array(z.unknown())}),
      z.object({after: z.string(), items: z.array(z.unknown())}),
      z.object({replace: z.string(), items: z.array(z.unknown())}),
    ])
    .optional(),
  ifRevisionID: z.string().optional(),
})
const attributes = z.looseObject({_id: z.string().optional(), _type: z.string()})
const documentBody = z.looseObject({_id: z.string(), _type: z.string()})

export const actionSchema = z.discriminatedUnion('actionType', [
  z.object({
    actionType: z.literal('sanity.action.document.create'),
    publishedId: z.string(),
    attributes,
    ifExists: z.enum(['fail', 'ignore']).default('fail'),
  }),
  z.object({
    actionType: z.literal('sanity.action.document.edit'),
    draftId: z.string(),
    publishedId: z.string(),
    patch: patchOperations,
  }),
  z.object({
    actionType: z.literal('sanity.action.document.publish'),
    draftId: z.string(),
    publishedId: z.string(),
    ifDraftRevisionId: z.string().optional(),
    ifPublishedRevisionId: z.string().optional(),
  }),
  z.object({
    actionType: z.literal('sanity.action.document.delete'),
    publishedId: z.string(),
    includeDrafts: z.array(z.string()).default([]),
  }),
  z.object({actionType: z.literal('sanity.action.document.discard'), draftId: z.string()}),
  z.object({actionType: z.literal('sanity.action.document.unpublish'), draftId: z.string(), publishedId: z.string()}),
  z.object({
    actionType: z.literal('sanity.action.document.replaceDraft'),
    publishedId: z.string(),
    attributes: documentBody,
  }),
])
export type Action = z.infer<typeof actionSchema>

export const mutationSchema = z.union([
  z.object({create: attributes}),
  z.object({createOrReplace: documentBody}),
  z.object({createIfNotExists: documentBody}),
  z.object({delete: z.object({id: z.string()})}),
  z.object({patch: patchOperations.extend({id: z.string()})}),
])
export type LakeMutation = z.infer<typeof mutationSchema>

/** A request the Content Lake refuses (the status it answers with, and why). */
export class TransactionError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.status = status
  }
}

/** One document's change in a committed transaction, as a listener event carries it. */
export interface MutationEvent {
  type: 'mutation'
  eventId: string
  documentId: string
  transactionId: string
  transition: 'appear' | 'update' | 'disappear'
  identity: string
  mutations: LakeMutation[]
  previousRev: string | undefined
  resultRev: string
  timestamp: string
  /** Mendoza patches; `[0, value]` is the operation that outputs `value` whole. */
  effects: {apply: [0, Omit<SanityDocument, '_rev'> | null]; revert: [0, Omit<SanityDocument, '_rev'> | null]}
  visibility: 'query'
  transactionTotalEvents: number
  transactionCurrentEvent: number
}

/** What a committed transaction changed: each document before and after (null: absent). */
export interface Committed {
  transactionId: string
  timestamp: string
  /** performance.now() at the commit: where a measurement of publish-to-visible starts. */
  committedAt: number
  changes: {id: string; before: SanityDocument | null; after: SanityDocument | null}[]
}

const withoutRevision = ({_rev, ...document}: SanityDocument) => document

export function createLakeDataset(initial: readonly SanityDocument[], options: {identity: string}) {
  const stored = new Map<string, SanityDocument>(
    initial.map((document) => [
      document._id,
      {...document, _rev: typeof document._rev === 'string' ? document._rev : 'initial'},
    ]),
  )
  // One array per state of the dataset: a reader that caches by array identity sees each change once.
  let all: readonly SanityDocument[] = [...stored.values()]
  const subscribers = new Set<(committed: Committed, events: MutationEvent[]) => void>()

  /** Applies steps to a working copy and commits them as one transaction, or changes nothing. */
  function transact(
    transactionId: string,
    steps: (working: Map<string, SanityDocument | null>, read: (id: string) => SanityDocument | null) => void,
  ): Committed {
    const working = new Map<string, SanityDocument | null>()
    const read = (id: string) => (working.has(id) ? (working.get(id) ?? null) : (stored.get(id) ?? null))
    steps(working, read)
    const timestamp = new Date().toISOString()
    const changes = [...working].flatMap(([id, next]) => {
      const before = stored.get(id) ?? null
      if (next === null && before === null) return []
      const createdAt = [before?._createdAt, next?._createdAt].find((value) => typeof value === 'string') ?? timestamp
      const after = next && {...next, _id: id, _rev: transactionId, _createdAt: createdAt, _updatedAt: timestamp}
      return [{id, before, after}]
    })
    for (const {id, after} of changes) {
      if (after) stored.set(id, after)
      else stored.delete(id)
    }
    all = [...stored.values()]
    const committed = {transactionId, timestamp, committedAt: performance.now(), changes}
    const events = changes.map(({id, before, after}, index): MutationEvent => ({
      type: 'mutation',
      eventId: `${transactionId}#${id}`,
      documentId: id,
      transactionId,
      transition: before === null ? 'appear' : after === null ? 'disappear' : 'update',
      identity: options.identity,
      mutations: [after ? {createOrReplace: after} : {delete: {id}}],
      previousRev: typeof before?._rev === 'string' ? before._rev : undefined,
      resultRev: transactionId,
      timestamp,
      effects: {apply: [0, after && withoutRevision(after)], revert: [0, before && withoutRevision(before)]},
      visibility: 'query',
      transactionTotalEvents: changes.length,
      transactionCurrentEvent: index + 1,
    }))
    for (const subscriber of subscribers) subscriber(committed, events)
    return committed
  }

  const patched = (document: SanityDocument, patch: z.infer<typeof patchOperations>): SanityDocument => {
    if (patch.ifRevisionID !== undefined && patch.ifRevisionID !== document._rev)
      throw new TransactionError(409, `Document ${document._id} is not at revision ${patch.ifRevisionID}`)
    const result = new Mutation({mutations: [{patch: {...patch, id: document._id}}]}).apply(document)
    if (!result) throw new TransactionError(409, `Patching ${document._id} removed it`)
    return result
  }

  function applyAction(
    action: Action,
    working: Map<string, SanityDocument | null>,
    read: (id: string) => SanityDocument | null,
  ): void {
    const existing = (id: string) => read(id) ?? fail(409, `Document ${id} does not exist`)
    switch (action.actionType) {
      case 'sanity.action.document.create': {
        const id = action.attributes._id ?? `drafts.${action.publishedId}`
        if (!read(id)) working.set(id, {...action.attributes, _id: id})
        else if (action.ifExists === 'fail') fail(409, `Document ${id} already exists`)
        return
      }
      case 'sanity.action.document.edit': {
        // An edit of a published document without a draft starts the draft from it.
        const base = read(action.draftId) ?? {...existing(action.publishedId), _id: action.draftId}
        return void working.set(action.draftId, patched(base, action.patch))
      }
      case 'sanity.action.document.publish': {
        const draft = existing(action.draftId)
        if (action.ifDraftRevisionId !== undefined && draft._rev !== action.ifDraftRevisionId)
          fail(409, `Draft ${action.draftId} has changed since revision ${action.ifDraftRevisionId}`)
        if (
          action.ifPublishedRevisionId !== undefined &&
          read(action.publishedId)?._rev !== action.ifPublishedRevisionId
        )
          fail(409, `Document ${action.publishedId} has changed`)
        working.set(action.publishedId, {...draft, _id: action.publishedId})
        return void working.set(action.draftId, null)
      }
      case 'sanity.action.document.delete':
        for (const id of [action.publishedId, `drafts.${action.publishedId}`, ...action.includeDrafts])
          working.set(id, null)
        return
      case 'sanity.action.document.discard':
        existing(action.draftId)
        return void working.set(action.draftId, null)
      case 'sanity.action.document.unpublish': {
        const published = existing(action.publishedId)
        if (!read(action.draftId)) working.set(action.draftId, {...published, _id: action.draftId})
        return void working.set(action.publishedId, null)
      }
      case 'sanity.action.document.replaceDraft':
        return void working.set(`drafts.${action.publishedId}`, action.attributes)
    }
  }

  function applyMutation(
    mutation: LakeMutation,
    working: Map<string, SanityDocument | null>,
    read: (id: string) => SanityDocument | null,
  ): string {
    if ('create' in mutation) {
      const id = mutation.create._id ?? crypto.randomUUID()
      if (read(id)) fail(409, `Document ${id} already exists`)
      working.set(id, {...mutation.create, _id: id})
      return id
    }
    if ('createOrReplace' in mutation) {
      working.set(mutation.createOrReplace._id, mutation.createOrReplace)
      return mutation.createOrReplace._id
    }
    if ('createIfNotExists' in mutation) {
      const {_id: id} = mutation.createIfNotExists
      if (!read(id)) working.set(id, mutation.createIfNotExists)
      return id
    }
    if ('delete' in mutation) {
      working.set(mutation.delete.id, null)
      return mutation.delete.id
    }
    const {id, ...operations} = mutation.patch
    working.set(id, patched(read(id) ?? fail(409, `Document ${id} does not exist`), operations))
    return id
  }

  return {
    /** Every stored document, drafts included; the same array until the next change. */
    all: () => all,
    get: (id: string) => stored.get(id),
    actions: (transactionId: string, actions: readonly Action[]) =>
      transact(transactionId, (working, read) => {
        for (const action of actions) applyAction(action, working, read)
      }),
    mutate(transactionId: string, mutations: readonly LakeMutation[]) {
      const ids: string[] = []
      const committed = transact(transactionId, (working, read) => {
        for (const mutation of mutations) ids.push(applyMutation(mutation, working, read))
      })
      return {committed, ids}
    },
    /** Called after every commit with what changed and the listener events for it. */
    subscribe(subscriber: (committed: Committed, events: MutationEvent[]) => void) {
      subscribers.add(subscriber)
      return () => subscribers.delete(subscriber)
    },
  }
}

function fail(status: number, message: string): never {
  throw new TransactionError(status, message)
}

export type LakeDataset = ReturnType<typeof createLakeDataset>
