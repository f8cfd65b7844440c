// What the catalog and its outputs left out: an output's items kept by the snapshot that built it,
// and those and the documents' problems logged once however many snapshots carry them again.
// Real snapshots of a tiny dataset and a real logger.
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
  it('are kept by the snapshot whose documents left them out, from when each document is built', async () => {
    const item = {documentId: 'episode-7', reason: 'its item could not be written'}
    const told: unknown[] = []
    const leaving = snapshotSettings({
      site: (_, leftOut) => {
        leftOut(item)
        leftOut(item)
        return []
      },
      feed: {
        path: '/feed.xml',
        build: (_, leftOut) => {
          leftOut(item)
          return undefined
        },
      },
      onLeftOut: (left) => told.push(left),
      keying: undefined,
    })
    const catalog = await catalogOf([voice('v-1'), episode('ep-1')])
    const first = buildSnapshot(catalog, leaving, undefined, new Date('2026-12-01T10:00:00Z'))
    expect(first.leftOut(), 'nothing is built yet').toEqual([])
    expect(first.site('/feed.xml')).toBeUndefined()
    expect(first.leftOut()).toEqual([{output: '/feed.xml', ...item}])
    expect(first.sitePaths).toEqual([])
    const both = [
      {output: '/feed.xml', ...item},
      {output: 'sitemaps', ...item},
    ]
    expect(first.leftOut()).toEqual(both)
    expect(told, 'each told once, as it is left out').toEqual(both)
    const second = buildSnapshot(catalog, leaving, first, new Date('2026-12-01T10:01:00Z'))
    expect(second.leftOut(), "a successor keeps none of its predecessor's").toEqual([])
  })

  it('are each logged once while they keep being left out', () => {
    const {logger, lines} = recordingLogger()
    const items = createLeftOutItems(logger)
    const item = {documentId: 'episode-7', reason: 'its item could not be written'}
    items.record({output: '/feed.xml', ...item})
    items.record({output: '/feed.xml', ...item})
    items.record({output: 'sitemaps', ...item})
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
