// The search index follows the snapshots built from each other: a publish re-indexes what it
// changed, and every answer is the one a fresh index of the same content gives. No sockets.
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {searchCatalog, type SearchAnswer} from '../../server/snapshot/search.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

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
    expect(answers(newer)).toEqual(await freshAnswers(retitled))
  })
})
