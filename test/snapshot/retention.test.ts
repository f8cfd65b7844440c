import {describe, expect, it} from 'vitest'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {collectGarbage} from '../helpers/gc.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})

describe('retired snapshots', () => {
  it('are collected once swapped out: a snapshot holds nothing of its predecessors', async () => {
    const build = catalogSnapshotBuilder({
      source: createEmbeddedFileSource(SAMPLE_DATASET),
      config,
      clock: () => new Date(),
    })
    const retired: WeakRef<Snapshot>[] = []
    let current = await build(undefined, {kind: 'all'})
    for (let round = 0; round < 5; round++) {
      // Everything a request can make on first use, so every lazy path has run.
      await current.warm()
      current.listPage('episodes', {limit: 7, cursor: null})
      retired.push(new WeakRef(current))
      const episode = current.catalog.episodes[round]
      current =
        round % 2 === 0 || !episode
          ? await build(current, {kind: 'all'})
          : await build(current, {kind: 'documents', documents: new Map([[episode.documentId, 'episodes']])})
    }
    await current.warm()
    await collectGarbage()
    expect(retired.map((reference) => reference.deref() === undefined)).toEqual(retired.map(() => true))
    expect(current.counts.episodes).toBeGreaterThan(0)
  })
})
