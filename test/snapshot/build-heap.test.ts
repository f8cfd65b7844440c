import {describe, expect, it} from 'vitest'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {isBuilding} from '../../server/snapshot/build-heap.ts'
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
    await catalogSnapshotBuilder({source, config, clock: () => new Date('2026-01-01T00:00:00Z')})(undefined, {kind: 'all'})
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
