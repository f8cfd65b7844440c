// A search reads transcripts to find its hits' cues within a budget of bytes: a query that matches
// many long transcripts answers them all, the lower hits without a cue, instead of parsing every
// one on the event loop. No sockets.
import {describe, expect, it} from 'vitest'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {CUE_BYTES_PER_SEARCH, searchCatalog} from '../../server/snapshot/search.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {LAST_WORD, LONG_TRANSCRIPT_CUES, sampleWithLongTranscripts} from '../helpers/long-transcripts.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const TRANSCRIBED = 6

describe("a search's cues", () => {
  it('are read within the budget: the hits past it answer without a cue', async () => {
    const snapshot = buildSnapshot(
      await catalogOf(sampleWithLongTranscripts(TRANSCRIBED)),
      snapshotSettings({}),
      undefined,
      new Date(),
    )
    const bytes = snapshot.catalog.episodes.find((entry) => entry.transcript)?.transcript?.length ?? 0
    expect(bytes).toBeGreaterThan(1_800_000)
    // 11 MB of transcripts is more than a search indexes at once: the first is told to come back.
    expect(searchCatalog(snapshot, LAST_WORD, COLLECTION_NAMES, 50)).toMatchObject({ready: false})
    await snapshot.searchIndex.ready(snapshot)
    const answer = searchCatalog(snapshot, LAST_WORD, COLLECTION_NAMES, 50)
    const hits = answer.ready ? answer.hits : []
    expect(hits).toHaveLength(TRANSCRIBED)
    const withCue = Math.floor(CUE_BYTES_PER_SEARCH / bytes)
    expect(withCue).toBeLessThan(TRANSCRIBED)
    expect(hits.map((hit) => hit.cue?.start_seconds ?? null)).toEqual([
      ...Array.from({length: withCue}, () => (LONG_TRANSCRIPT_CUES - 1) * 2),
      ...Array.from({length: TRANSCRIBED - withCue}, () => null),
    ])
  })
})
