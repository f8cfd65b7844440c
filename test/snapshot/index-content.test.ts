// How a search index's content is made and moved on by a publish (index-content.ts), read through
// its own functions and the lookups it keeps: no sockets.
import {describe, expect, it} from 'vitest'
import {z} from 'zod'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {
  applyReindex,
  indexSteps,
  reindexOf,
  workOf,
  type FollowedState,
  type Indexed,
} from '../../server/snapshot/index-content.ts'
import {searchCatalog} from '../../server/snapshot/search.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const settings = snapshotSettings({})
const sample = sampleDocuments.filter((document) => !document._id.startsWith('drafts.'))

const slugOf = (document: SanityDocument) =>
  z.object({slug: z.object({current: z.string()})}).safeParse(document).data?.slug.current
const bySlug = (slug: string) => {
  const found = sample.find((document) => slugOf(document) === slug)
  if (!found) throw new Error(`the sample has no ${slug}`)
  return found
}
const edited = (documents: readonly SanityDocument[], slug: string, patch: Partial<SanityDocument>) =>
  documents.map((document) => (slugOf(document) === slug ? {...document, ...patch} : document))
const without = (documents: readonly SanityDocument[], ...slugs: string[]) =>
  documents.filter((document) => !slugs.includes(slugOf(document) ?? ''))
/** A transcript's cues with the last one saying `text` instead. */
const lastCueSays = (slug: string, text: string) => {
  const said = z.array(z.object({text: z.string()}).loose()).parse(bySlug(slug).transcript)
  return [...said.slice(0, -1), {...said.at(-1), text}]
}

const snapshotOf = async (documents: readonly SanityDocument[], previous?: Snapshot) =>
  buildSnapshot(await catalogOf(documents), settings, previous, NOW)
/** The whole index of `indexed`, its steps run to the end. */
const indexOf = (indexed: Indexed): FollowedState => {
  const steps = indexSteps(indexed)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}
/** The reindex that moves `state` (of `from`) to `to`. */
const reindexTo = (state: FollowedState, from: Snapshot, to: Snapshot) => {
  const changes = to.history.since(from.version)
  if (!changes) throw new Error(`${to.version}'s history does not reach ${from.version}`)
  return reindexOf(state, to, changes)
}
/** `state` moved from `from` to `to` in place. */
const movedOn = (state: FollowedState, from: Snapshot, to: Snapshot) => {
  applyReindex(state, to, reindexTo(state, from, to))
  return state
}
const slugsFound = (snapshot: Snapshot, query: string) => {
  const answer = searchCatalog(snapshot, query, ['episodes'], 50)
  return answer.ready ? answer.hits.map((hit) => hit.slug) : []
}

const TRANSCRIBED = 'ep-2-react-server-components'

describe('the work of indexing a snapshot whole', () => {
  it('counts every item once and a KiB of transcript as one more', async () => {
    const snapshot = await snapshotOf(sample)
    const {episodes, meetups, voices} = snapshot.catalog
    const transcriptBytes = episodes.reduce((sum, {transcript}) => sum + (transcript?.length ?? 0), 0)
    expect(transcriptBytes).toBeGreaterThan(0)
    expect(workOf(snapshot)).toBe(episodes.length + meetups.length + voices.length + transcriptBytes / 1024)
  })
})

describe('a whole index', () => {
  it('matches a word by its prefix and despite a typo', async () => {
    const snapshot = await snapshotOf(sample)
    expect(slugsFound(snapshot, 'kubern')).toContain('ep-19-reversible-deploys')
    expect(slugsFound(snapshot, 'kubernetas')).toContain('ep-19-reversible-deploys')
  })

  it('indexes an episode whose transcript cannot be read, without its transcript', async () => {
    const {catalog, version, history} = await snapshotOf(sample)
    const unreadable = {
      ...catalog,
      episodes: catalog.episodes.map((entry) =>
        entry.value.slug === TRANSCRIBED ? {...entry, transcript: new TextEncoder().encode('not a transcript')} : entry,
      ),
    }
    const state = indexOf({catalog: unreadable, version, history})
    expect(state.documents.has(`episodes/${TRANSCRIBED}`)).toBe(true)
    expect(state.transcripts.size).toBe(catalog.episodes.filter((entry) => entry.transcript).length - 1)
  })
})

describe('what a publish re-indexes', () => {
  it('re-indexes a new voice no item names on its own', async () => {
    const a = await snapshotOf(sample)
    const voice = bySlug('noa-levi')
    const b = await snapshotOf(
      [...sample, {...voice, _id: 'voice-new', slug: {_type: 'slug', current: 'voice-new'}}],
      a,
    )
    const reindex = reindexTo(indexOf(a), a, b)
    expect(reindex.stale).toEqual(new Set(['voices/voice-new']))
    expect(reindex.work).toBe(1)
  })

  it("does not re-index the items naming a voice when an episode with the voice's slug changes", async () => {
    const a = await snapshotOf(sample)
    const episode = bySlug('ep-31-webhooks-done-right')
    const b = await snapshotOf([...sample, {...episode, _id: 'ep-noa', slug: {_type: 'slug', current: 'noa-levi'}}], a)
    expect(reindexTo(indexOf(a), a, b).stale).toEqual(new Set(['episodes/noa-levi']))
  })

  it("counts a changed transcript's KiB in the work, and no transcript for items without one", async () => {
    const a = await snapshotOf(sample)
    const b = await snapshotOf(edited(sample, TRANSCRIBED, {transcript: lastCueSays(TRANSCRIBED, 'צפרדע')}), a)
    const reindex = reindexTo(indexOf(a), a, b)
    const bytes = b.catalog.episodes.find((entry) => entry.value.slug === TRANSCRIBED)?.transcript?.length ?? 0
    expect(reindex.transcribed).toEqual(new Set([`episodes/${TRANSCRIBED}`]))
    expect(reindex.work).toBe(reindex.stale.size + bytes / 1024)
  })

  it('re-reads no transcript when a voice none of whose episodes has one is renamed', async () => {
    const a = await snapshotOf(sample)
    const b = await snapshotOf(edited(sample, 'ofir-zaken', {name: 'נמר שקט'}), a)
    const reindex = reindexTo(indexOf(a), a, b)
    expect(reindex.stale.size).toBeGreaterThan(1)
    expect(reindex.transcribed).toEqual(new Set())
    expect(reindex.work).toBe(reindex.stale.size)
  })

  it('costs nothing more for a deleted transcript, or a removed one, than for the item', async () => {
    const a = await snapshotOf(sample)
    const gone = await snapshotOf(without(sample, TRANSCRIBED), a)
    const deleted = reindexTo(indexOf(a), a, gone)
    expect(deleted.transcribed).toEqual(new Set([`episodes/${TRANSCRIBED}`]))
    expect(deleted.work).toBe(deleted.stale.size)
    const untranscribed = await snapshotOf(edited(sample, TRANSCRIBED, {transcript: undefined}), a)
    expect(reindexTo(indexOf(a), a, untranscribed).transcribed).toEqual(new Set([`episodes/${TRANSCRIBED}`]))
  })

  it('re-reads the transcript an episode gains', async () => {
    const before = edited(sample, TRANSCRIBED, {transcript: undefined})
    const a = await snapshotOf(before)
    const b = await snapshotOf(sample, a)
    expect(reindexTo(indexOf(a), a, b).transcribed).toEqual(new Set([`episodes/${TRANSCRIBED}`]))
  })
})

describe('a followed index moved on by a publish', () => {
  it("finds a transcript's new words and not its old ones", async () => {
    const a = await snapshotOf(edited(sample, TRANSCRIBED, {transcript: lastCueSays(TRANSCRIBED, 'צפרדע')}))
    expect(slugsFound(a, 'צפרדע')).toEqual([TRANSCRIBED])
    const b = await snapshotOf(edited(sample, TRANSCRIBED, {transcript: lastCueSays(TRANSCRIBED, 'קרנף')}), a)
    expect(slugsFound(b, 'קרנף')).toEqual([TRANSCRIBED])
    expect(slugsFound(b, 'צפרדע')).toEqual([])
  })

  it('finds a transcript an episode gains, and keeps one whose episode was only retitled', async () => {
    const a = await snapshotOf(edited(sample, TRANSCRIBED, {transcript: undefined}))
    const gained = edited(sample, TRANSCRIBED, {transcript: lastCueSays(TRANSCRIBED, 'צפרדע')})
    const b = await snapshotOf(gained, a)
    expect(slugsFound(b, 'צפרדע')).toEqual([TRANSCRIBED])
    const c = await snapshotOf(edited(gained, TRANSCRIBED, {title: 'זברה בענן'}), b)
    expect(slugsFound(c, 'צפרדע')).toEqual([TRANSCRIBED])
  })

  it("drops a deleted episode's document and transcript", async () => {
    const a = await snapshotOf(sample)
    const b = await snapshotOf(without(sample, TRANSCRIBED), a)
    const state = movedOn(indexOf(a), a, b)
    expect(state.documents.has(`episodes/${TRANSCRIBED}`)).toBe(false)
    expect(state.transcripts.size).toBe(indexOf(a).transcripts.size - 1)
  })

  it("keeps the lookups a fresh index of the publish's content keeps", async () => {
    const a = await snapshotOf(sample)
    // Deleted: the only item naming lior-segal, one of nir-weiss's two, and the only one tagged webhooks.
    const changed = without(
      edited(sample, 'ep-2-react-server-components', {title: 'זברה בענן'}),
      'ep-13-android-performance',
      'ep-22-cache-invalidation',
      'ep-31-webhooks-done-right',
    )
    const b = await snapshotOf(changed, a)
    const state = movedOn(indexOf(a), a, b)
    const fresh = indexOf(b)
    expect(state.namedBy.has('lior-segal')).toBe(false)
    expect(state.namedBy.get('nir-weiss')).toEqual(new Set(['episodes/ep-24-redis-internals']))
    expect(state.namedBy).toEqual(fresh.namedBy)
    expect(state.tagWords.has('webhooks')).toBe(false)
    expect(state.tagWords).toEqual(fresh.tagWords)
    expect([...state.documents.keys()].sort()).toEqual([...fresh.documents.keys()].sort())
  })

  it("gives a query word's terms in the order a fresh index gives them, whatever order the tags came in", async () => {
    const a = await snapshotOf(sample)
    // `rest` sounds as `rust` does (רסט), and comes first in the catalog's order, though last to the followed index.
    const b = await snapshotOf(edited(sample, 'ep-31-webhooks-done-right', {tags: ['webhooks', 'rest']}), a)
    const state = movedOn(indexOf(a), a, b)
    expect(state.analyse('רסט')).toEqual(indexOf(b).analyse('רסט'))
    expect(state.analyse('רסט')).toEqual(expect.arrayContaining(['rest', 'rust']))
  })
})
