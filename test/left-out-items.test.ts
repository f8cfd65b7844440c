// What the catalog and its outputs left out: an output's items kept per snapshot, and those and the
// documents' problems logged once however many snapshots carry them again.
// Real snapshots of a tiny dataset (only their identity matters here) and a real logger.
import {describe, expect, it} from 'vitest'
import {createLeftOutItems} from '../server/left-out-items.ts'
import {buildSnapshot} from '../server/snapshot/snapshot.ts'
import {episode, voice} from './fixtures/documents.ts'
import {recordingLogger} from './helpers/log-lines.ts'
import {catalogOf, snapshotSettings} from './helpers/snapshot-settings.ts'

const settings = snapshotSettings({site: () => [], feed: undefined, keying: undefined})
const snapshot = async () =>
  buildSnapshot(await catalogOf([voice('v-1'), episode('ep-1')]), settings, undefined, new Date('2026-12-01T10:00:00Z'))

describe('items the outputs left out', () => {
  it('are kept per snapshot, and each is logged once while it keeps being left out', async () => {
    const {logger, lines} = recordingLogger()
    const items = createLeftOutItems(logger)
    const [first, second, other] = [await snapshot(), await snapshot(), await snapshot()]
    const item = {documentId: 'episode-7', reason: 'its item could not be written'}
    items.record(first, '/feed.xml', item)
    items.record(first, '/feed.xml', item)
    items.record(second, '/feed.xml', item)
    items.record(second, 'sitemaps', item)
    expect(items.of(first)).toEqual([{output: '/feed.xml', ...item}])
    expect(items.of(second)).toEqual([
      {output: '/feed.xml', ...item},
      {output: 'sitemaps', ...item},
    ])
    expect(items.of(other)).toEqual([])
    expect(lines).toMatchObject([
      {
        level: 40,
        documentId: 'episode-7',
        output: '/feed.xml',
        msg: '/feed.xml left out episode-7: its item could not be written',
      },
      {
        level: 40,
        documentId: 'episode-7',
        output: 'sitemaps',
        msg: 'sitemaps left out episode-7: its item could not be written',
      },
    ])
    expect(lines).toHaveLength(2)
  })

  it("log each snapshot's document problems once while they stay the same, in the same report", async () => {
    const {logger, lines} = recordingLogger()
    const items = createLeftOutItems(logger)
    const [first, second] = [await snapshot(), await snapshot()]
    // This dataset has no podcast settings document: the feed's problem, in every snapshot.
    expect(first.catalog.problems.length).toBeGreaterThan(0)
    items.reportProblems(first)
    items.reportProblems(second)
    expect(lines).toHaveLength(first.catalog.problems.length)
    expect(lines[0]?.msg).toMatch(/^rejected: settings document podcastSettings: /)
  })
})
