// The search index follows the snapshots built from each other: a publish re-indexes what it
// changed, and every answer is the one a fresh index of the same content gives. No sockets.
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {workOf} from '../../server/snapshot/index-content.ts'
import {searchCatalog, type SearchAnswer} from '../../server/snapshot/search.ts'
import {SearchIndex} from '../../server/snapshot/search-index.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {sampleWithLongTranscripts} from '../helpers/long-transcripts.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'
import {collectGarbage} from '../helpers/gc.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const settings = snapshotSettings({})
const sample = parseNdjson(readFileSync(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET).filter(
  (document) => !document._id.startsWith('drafts.'),
)
const QUERIES = ['ריאקט', 'רולבק לדיפלוי', 'kubernetes', 'נגישות', 'זברה', 'svelte', 'סבלט', 'אופיר', 'נמר']

const withDocument = (documents: readonly SanityDocument[], id: string, patch: Partial<SanityDocument>) =>
  documents.map((document) => (document._id === id ? {...document, ...patch} : document))
const first = (type: string) => {
  const found = sample.find((document) => document._type === type)
  if (!found) throw new Error(`the sample has no ${type}`)
  return found
}
/** The MiniSearch index answering for `snapshot` (the sample is indexed at once). */
const indexOf = (snapshot: Snapshot) => {
  const lookup = snapshot.searchIndex.of(snapshot)
  return lookup.ready ? lookup.content.search : undefined
}
const hitsOf = (answer: SearchAnswer) => (answer.ready ? answer.hits : [])
const answers = (snapshot: Snapshot) => QUERIES.map((query) => searchCatalog(snapshot, query, COLLECTION_NAMES, 50))
/** The same content in a line of its own: an index made from nothing. */
const freshAnswers = async (documents: readonly SanityDocument[]) =>
  answers(buildSnapshot(await catalogOf(documents), settings, undefined, NOW))

describe('the search index across publishes', () => {
  const episode = first('episode')
  const voice = first('voice')
  // An episode retitled, a voice renamed (its episodes' bytes do not change, their `people` text
  // does), an episode gone, and one added with a tag no item had (a loanword the query analyser learns).
  const edits: [string, (documents: readonly SanityDocument[]) => SanityDocument[]][] = [
    ['an episode retitled', (documents) => withDocument(documents, episode._id, {title: 'זברה בענן'})],
    ['a voice renamed', (documents) => withDocument(documents, voice._id, {name: 'נמר שקט'})],
    [
      'an episode gone and another added with a new tag',
      (documents) => [
        ...documents.filter((document) => document._id !== episode._id),
        {...episode, _id: 'ep-new', slug: {_type: 'slug', current: 'ep-new'}, title: 'פרק חדש', tags: ['svelte']},
      ],
    ],
  ]

  it('answers each publish as a fresh index of its content would, re-indexing in place', async () => {
    let documents: readonly SanityDocument[] = sample
    let snapshot = buildSnapshot(await catalogOf(documents), settings, undefined, NOW)
    answers(snapshot)
    const followed = indexOf(snapshot)
    for (const [edit, apply] of edits) {
      documents = apply(documents)
      snapshot = buildSnapshot(await catalogOf(documents), settings, snapshot, NOW)
      expect(answers(snapshot), edit).toEqual(await freshAnswers(documents))
      expect(indexOf(snapshot), `${edit}: the same index, moved on`).toBe(followed)
    }
    // What the edits did is found: the new title, the voice's new name in its episodes, the new tag.
    const slugs = (query: string) => hitsOf(searchCatalog(snapshot, query, COLLECTION_NAMES, 50)).map((hit) => hit.slug)
    expect(slugs('זברה')).toEqual([])
    expect(slugs('נמר').length).toBeGreaterThan(1)
    expect(slugs('סבלט')).toContain('ep-new')
  })

  it("answers a snapshot older than the one it follows with that snapshot's own content", async () => {
    const older = buildSnapshot(await catalogOf(sample), settings, undefined, NOW)
    const retitled = withDocument(sample, episode._id, {title: 'זברה בענן'})
    const newer = buildSnapshot(await catalogOf(retitled), settings, older, NOW)
    expect(hitsOf(searchCatalog(newer, 'זברה', ['episodes'], 50)).map((hit) => hit.slug)).toHaveLength(1)
    const followed = indexOf(newer)
    expect(searchCatalog(older, 'זברה', ['episodes'], 50)).toEqual({ready: true, hits: [], total: 0})
    // ...with an index of its own: the newer one is still followed, not indexed again.
    expect(indexOf(newer)).toBe(followed)
    expect(indexOf(older), "the older one's is kept, not built again").toBe(indexOf(older))
    expect(answers(newer)).toEqual(await freshAnswers(retitled))
  })
})

/** Resolves with `index`'s answer for `snapshot`, or rejects when none comes within the test's patience. */
const readyWithin = (index: SearchIndex, snapshot: Snapshot) =>
  Promise.race([
    index.ready(snapshot),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`${snapshot.version} never indexed`)), 20_000)),
  ])

describe("a large catalog's index, built in the background", () => {
  it('keeps the event loop awake while it builds, so that a quiet server finishes it', async () => {
    const index = new SearchIndex(1)
    const a = buildSnapshot(await catalogOf(sample), settings, undefined, NOW)
    expect(index.of(a).ready).toBe(false)
    // A referenced immediate: an unreferenced one let the loop sleep until its next timer between slices.
    expect(process.getActiveResourcesInfo()).toContain('Immediate')
    await readyWithin(index, a)
  })

  it('follows a revert to earlier content, whose version its history already names', async () => {
    // Treated as large (one unit of work is built at once), so every whole build is a background one.
    const index = new SearchIndex(1)
    const a = buildSnapshot(await catalogOf(sample), settings, undefined, NOW)
    const retitled = sample.map((document) =>
      typeof document.title === 'string' ? {...document, title: `${document.title} x`} : document,
    )
    const b = buildSnapshot(await catalogOf(retitled), settings, a, NOW)
    const reverted = buildSnapshot(await catalogOf(sample), settings, b, NOW)
    expect(reverted.version).toBe(a.version)
    await readyWithin(index, a)
    await readyWithin(index, b)
    await readyWithin(index, reverted)
    expect(index.of(reverted).ready).toBe(true)
  })

  it('moves on by a title edit at once, and by a changed transcript in the background', async () => {
    const index = new SearchIndex(10)
    const documents = sampleWithLongTranscripts(1)
    const transcribed = documents.find((document) => document.transcript !== undefined)
    if (!transcribed) throw new Error('one episode has a long transcript')
    const a = buildSnapshot(await catalogOf(documents), settings, undefined, NOW)
    expect(index.of(a).ready).toBe(false)
    await readyWithin(index, a)
    // The transcript's bytes are the same: only the item is indexed again, not its 1.9 MB transcript.
    const retitled = buildSnapshot(
      await catalogOf(withDocument(documents, transcribed._id, {title: 'זברה בענן'})),
      settings,
      a,
      NOW,
    )
    expect(index.of(retitled).ready).toBe(true)
    // A changed transcript is 1.9 MB to index again: past the work done at once, so in the background.
    const said = z.array(z.object({text: z.string()}).loose()).parse(transcribed.transcript)
    const respoken = buildSnapshot(
      await catalogOf(
        withDocument(documents, transcribed._id, {
          title: 'זברה בענן',
          transcript: [...said.slice(0, -1), {...said.at(-1), text: 'צפרדע'}],
        }),
      ),
      settings,
      retitled,
      NOW,
    )
    expect(index.of(respoken).ready).toBe(false)
    await readyWithin(index, respoken)
    expect(hitsOf(searchCatalog(respoken, 'צפרדע', ['episodes'], 10)).map((hit) => hit.slug)).toHaveLength(1)
  })
})

describe('what a search index does at once, and what in the background', () => {
  const snapshotOf = async (documents: readonly SanityDocument[], previous?: Snapshot) =>
    buildSnapshot(await catalogOf(documents), settings, previous, NOW)
  /** The sample, then the sample with its first episode retitled (a publish of one item's work). */
  const publish = async () => {
    const a = await snapshotOf(sample)
    return {a, b: await snapshotOf(withDocument(sample, first('episode')._id, {title: 'זברה בענן'}), a)}
  }
  const nextImmediate = () => new Promise((resolve) => setImmediate(resolve))

  it('answers at once a catalog whose work is exactly what it does at once', async () => {
    const a = await snapshotOf(sample)
    const index = new SearchIndex(workOf(a))
    expect(index.answersAtOnce(a)).toBe(true)
    expect(index.of(a).ready).toBe(true)
  })

  it('says a larger catalog is not answered at once, and to ask again in a second', async () => {
    const large = await snapshotOf(sampleWithLongTranscripts(1))
    const index = new SearchIndex(workOf(large) - 1)
    expect(index.answersAtOnce(large)).toBe(false)
    expect(index.of(large)).toEqual({ready: false, retryAfterSeconds: 1})
    await readyWithin(index, large)
  })

  it('tells a search of a very large catalog to wait longer than a second', async () => {
    const huge = await snapshotOf(sampleWithLongTranscripts(13))
    const index = new SearchIndex()
    const lookup = index.of(huge)
    expect(lookup.ready ? 0 : lookup.retryAfterSeconds).toBeGreaterThan(1)
    await readyWithin(index, huge)
  })

  it('answers at once the snapshot it follows, and a publish it moves on to', async () => {
    const {a, b} = await publish()
    const index = new SearchIndex()
    index.of(a)
    expect(index.answersAtOnce(a)).toBe(true)
    expect(index.answersAtOnce(b)).toBe(true)
  })

  it('moves on at once by a publish whose work is exactly what it does at once', async () => {
    const {a, b} = await publish()
    // Retitling one episode is one item's work; the whole sample is built in the background.
    const index = new SearchIndex(1)
    await readyWithin(index, a)
    expect(index.of(b).ready).toBe(true)
  })

  it('holds a search of another catalog while a background build runs', async () => {
    const small = await snapshotOf(sample)
    const large = await snapshotOf(sampleWithLongTranscripts(1))
    const index = new SearchIndex(workOf(small))
    expect(index.of(large).ready).toBe(false)
    expect(index.answersAtOnce(small)).toBe(false)
    expect(index.of(small).ready).toBe(false)
    await readyWithin(index, large)
  })

  it('tells a search of an older snapshot too large to index at once to retry, and builds nothing for it', async () => {
    const {a, b} = await publish()
    const c = await snapshotOf(withDocument(sample, first('episode')._id, {title: 'צפרדע בענן'}), b)
    const index = new SearchIndex(1)
    await readyWithin(index, b)
    expect(index.of(a)).toEqual({ready: false, retryAfterSeconds: 1})
    // Nothing is being built: the next publish is re-indexed at once.
    expect(index.of(c).ready).toBe(true)
  })

  it('indexes at once an older snapshot whose work is exactly what it does at once', async () => {
    const {a, b} = await publish()
    const index = new SearchIndex(workOf(a))
    expect(index.of(b).ready).toBe(true)
    expect(index.of(a).ready).toBe(true)
  })

  it('follows a publish that deletes most of the catalog, indexed whole at once', async () => {
    const a = await snapshotOf(sample)
    const voices = await snapshotOf(
      sample.filter((document) => document._type !== 'episode' && document._type !== 'meetup'),
      a,
    )
    const index = new SearchIndex(workOf(voices))
    await readyWithin(index, a)
    expect(index.of(voices).ready).toBe(true)
    // The voices are what it follows now: the whole sample is an older snapshot, too large to index at once.
    expect(index.of(a).ready).toBe(false)
  })

  it('finishes a small background build in its next turns of the event loop, with no timer', async () => {
    const tiny = await snapshotOf(sample.filter((document) => document._type === 'voice').slice(0, 3))
    // Built once at once first, so that the one in the background is not the first to load anything.
    expect(new SearchIndex().of(tiny).ready).toBe(true)
    const index = new SearchIndex(0)
    expect(index.of(tiny).ready).toBe(false)
    // One slice is 20 ms, which it takes a fraction of; a busy machine may still take its slice away.
    for (let turn = 0; turn < 50 && !index.of(tiny).ready; turn++) await nextImmediate()
    expect(index.of(tiny).ready).toBe(true)
  })

  it('after a background build fails, starts none for a search until its backoff has passed, and says so', async () => {
    const large = await snapshotOf(sampleWithLongTranscripts(1))
    let failing = false
    const catalog = new Proxy(large.catalog, {
      get: (target, name) => {
        if (failing && name === 'episodes') throw new Error('an unreadable catalog')
        return Reflect.get(target, name)
      },
    })
    const index = new SearchIndex(1)
    const unreadable = {...large, catalog, searchIndex: index}
    expect(index.of(unreadable).ready).toBe(false)
    failing = true
    for (let turn = 0; turn < 50 && index.health().building; turn++) await nextImmediate()
    failing = false
    expect(index.health()).toMatchObject({building: false, consecutiveFailures: 1, lastError: 'an unreadable catalog'})
    expect(index.health().nextBuildAt).toBeGreaterThan(Date.now())
    // Ten seconds of backoff: the search is told to come back then, and nothing is built meanwhile.
    const lookup = index.of(unreadable)
    expect(lookup.ready ? 0 : lookup.retryAfterSeconds).toBeGreaterThan(5)
    expect(index.health().building).toBe(false)
  })

  it('lets the index it replaces go when a whole build starts, not when it ends', async () => {
    const a = await snapshotOf(sample)
    const index = new SearchIndex(workOf(a))
    const followed = () => {
      const lookup = index.of(a)
      if (!lookup.ready) throw new Error('the sample is indexed at once')
      return new WeakRef(lookup.content)
    }
    const replaced = followed()
    // Long transcripts are more than is done at once: the whole index is built again in the background.
    const large = await snapshotOf(sampleWithLongTranscripts(13), a)
    expect(index.of(large).ready).toBe(false)
    await collectGarbage()
    expect(index.health().building).toBe(true)
    expect(replaced.deref()).toBeUndefined()
    await readyWithin(index, large)
  })

  it('holds the event loop a slice at a time while a large build runs', async () => {
    const large = await snapshotOf(sampleWithLongTranscripts(2))
    const index = new SearchIndex(1)
    expect(index.of(large).ready).toBe(false)
    await nextImmediate()
    expect(index.of(large).ready).toBe(false)
    await readyWithin(index, large)
  })
})
