// A search reads transcripts to find its hits' cues within a budget of bytes: a query that matches
// many long transcripts answers them all, the lower hits without a cue, instead of parsing every
// one on the event loop. No sockets.
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {CUE_BYTES_PER_SEARCH, searchCatalog} from '../../server/snapshot/search.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const sample = parseNdjson(readFileSync(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET).filter(
  (document) => !document._id.startsWith('drafts.'),
)
const episodes = sample.filter((document) => document._type === 'episode')
const TRANSCRIBED = 6
// About 2 MB of text each, the rule's limit, in long words: few tokens to index, many bytes to read.
const CUES = 1000
const longWord = (index: number) => `${'א'.repeat(90)}${String(index)}`
const transcript = Array.from({length: CUES}, (_, index) => ({
  _key: `c${index}`,
  _type: 'transcriptCue',
  start: index * 2,
  end: index * 2 + 1.5,
  speakerName: 'דוברת',
  // The word sought is said once, in the last cue: finding the cue reads the whole transcript.
  text: index === CUES - 1 ? 'זנבנב' : Array.from({length: 10}, (_, word) => longWord(word)).join(' '),
}))

describe("a search's cues", () => {
  it('are read within the budget: the hits past it answer without a cue', async () => {
    const transcribed = new Set(episodes.slice(0, TRANSCRIBED).map((episode) => episode._id))
    const documents = sample.map((document) =>
      transcribed.has(document._id) ? {...document, transcript, duration: 10_000} : document,
    )
    const snapshot = buildSnapshot(await catalogOf(documents), snapshotSettings({}), undefined, new Date())
    const bytes = snapshot.catalog.episodes.find((entry) => entry.transcript)?.transcript?.length ?? 0
    expect(bytes).toBeGreaterThan(1_800_000)
    // 11 MB of transcripts is more than a search indexes at once: the first is told to come back.
    expect(searchCatalog(snapshot, 'זנבנב', COLLECTION_NAMES, 50)).toMatchObject({ready: false})
    await snapshot.searchIndex.ready(snapshot)
    const answer = searchCatalog(snapshot, 'זנבנב', COLLECTION_NAMES, 50)
    const hits = answer.ready ? answer.hits : []
    expect(hits).toHaveLength(TRANSCRIBED)
    const withCue = Math.floor(CUE_BYTES_PER_SEARCH / bytes)
    expect(withCue).toBeLessThan(TRANSCRIBED)
    expect(hits.map((hit) => hit.cue?.start_seconds ?? null)).toEqual([
      ...Array.from({length: withCue}, () => (CUES - 1) * 2),
      ...Array.from({length: TRANSCRIBED - withCue}, () => null),
    ])
  })
})
