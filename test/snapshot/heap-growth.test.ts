import {describe, expect, it} from 'vitest'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {HEAP_HEADROOM_BYTES, headroomGrowingPercent, isBuilding} from '../../server/snapshot/heap-growth.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})

describe('the heap while building', () => {
  it('covers the reads and mapping of a build', async () => {
    let readWhileBuilding: boolean | undefined
    const source = createEmbeddedSource('inline', async () => {
      readWhileBuilding = isBuilding()
      return [voice('dana'), episode('ep-1')]
    })
    await catalogSnapshotBuilder({source, config, clock: () => new Date('2026-01-01T00:00:00Z')})(undefined, {
      kind: 'all',
    })
    expect(readWhileBuilding).toBe(true)
    expect(isBuilding()).toBe(false)
  })

  it('covers the feed and the site documents a snapshot makes on demand', async () => {
    const madeWhileBuilding: boolean[] = []
    const settings = snapshotSettings({
      site: () => {
        madeWhileBuilding.push(isBuilding())
        return [{path: '/llms.txt', body: 'קטלוג', contentType: 'text/plain; charset=utf-8'}]
      },
      feed: {
        path: '/feed.xml',
        build: () => {
          madeWhileBuilding.push(isBuilding())
          return {path: '/feed.xml', body: '<rss/>', contentType: 'application/rss+xml; charset=utf-8'}
        },
      },
    })
    const catalog = await catalogOf([voice('dana')])
    const snapshot = buildSnapshot(catalog, settings, undefined, new Date('2026-01-01T00:00:00Z'))
    expect(snapshot.site('/llms.txt')).toBeDefined()
    expect(snapshot.site('/feed.xml')).toBeDefined()
    expect(madeWhileBuilding).toEqual([true, true])
    expect(isBuilding()).toBe(false)
  })
})

describe('the heap between builds', () => {
  const MiB = 1024 * 1024
  it('grows at most the headroom past a large live heap, never less than a build may', () => {
    expect(headroomGrowingPercent(370 * MiB)).toBe(Math.ceil((100 * HEAP_HEADROOM_BYTES) / (370 * MiB)))
    expect((370 * MiB * headroomGrowingPercent(370 * MiB)) / 100).toBeGreaterThanOrEqual(HEAP_HEADROOM_BYTES)
    expect((370 * MiB * (headroomGrowingPercent(370 * MiB) - 1)) / 100).toBeLessThan(HEAP_HEADROOM_BYTES)
    expect(headroomGrowingPercent(4096 * MiB)).toBe(20)
  })

  it("leaves a heap smaller than the headroom (the sample's) to V8's own factor", () => {
    expect(headroomGrowingPercent(46 * MiB)).toBe(0)
    expect(headroomGrowingPercent(HEAP_HEADROOM_BYTES)).toBe(100)
  })
})
