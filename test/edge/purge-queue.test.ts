// The purge queue and edge purging at the module level: a purge call the test answers when it
// chooses (a deferred adapter), a clock stuck in one millisecond, and a real 2 MB tmpfs that the
// test fills and makes read-only (real ENOSPC and EROFS from the kernel; mounting needs root).
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {Registry} from 'prom-client'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {catalogSnapshotBuilder, createCatalogBuilder} from '../../server/catalog-builder.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {createEdgePurging} from '../../server/edge/edge-purging.ts'
import type {PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {PurgeQueue} from '../../server/edge/purge-queue.ts'
import {eventually} from '../../support/eventually.ts'
import {recordingLogger} from '../helpers/log-lines.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {mountSmallDisk, type SmallDisk} from '../helpers/small-disk.ts'

/** Purge calls that stay out until the test answers them, in order. */
function deferredAdapter() {
  const calls: {keys: readonly string[]; answer: () => void}[] = []
  const adapter: PurgeAdapter = {
    provider: 'test',
    purge: (keys) => new Promise<void>((resolve) => void calls.push({keys: [...keys], answer: resolve})),
  }
  return {adapter, calls}
}

describe('a purge call still out when its key is queued again', () => {
  it('keeps the key for the newer version, sends it again, and reports only the version actually covered', async () => {
    const {adapter, calls} = deferredAdapter()
    const queue = new PurgeQueue({adapter, maxKeys: 100})
    queue.enqueue(['episodes/ep-1', 'episodes'], 'v1')
    await eventually(async () => expect(calls).toHaveLength(1))
    queue.enqueue(['episodes/ep-1', 'episodes'], 'v2') // the second edit is served while the first purge is out
    calls[0]?.answer()
    await eventually(async () => expect(calls).toHaveLength(2))
    expect(queue.status()).toMatchObject({depth: 2, lastPurgedVersion: 'v1'})
    expect(calls[1]?.keys).toEqual(['episodes/ep-1', 'episodes'])
    calls[1]?.answer()
    await queue.drained()
    expect(queue.status()).toMatchObject({depth: 0, lastPurgedVersion: 'v2', purgesSent: 2})
    queue.close()
  })
})

describe('which accepted changes a build covers', () => {
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://api.test',
    CDN_PURGE: 'cloudflare',
    CLOUDFLARE_API_TOKEN: 't',
    CLOUDFLARE_ZONE_ID: '023e105f4ecef8ad9ca31a8372d0c353',
  })
  const instant = Date.parse('2026-11-26T22:00:00Z')

  it('clears the unplanned change with the build that started after it, even in the same millisecond', async () => {
    if (!config.edge) throw new Error('expected an edge configuration')
    let documents: SanityDocument[] = [...sampleDocuments]
    const purged: string[][] = []
    const edge = createEdgePurging({
      config: config.edge,
      adapter: {provider: 'test', purge: async (keys) => void purged.push([...keys])},
      clock: () => instant,
    })
    const {build: builds} = createCatalogBuilder({
      source: createEmbeddedSource('in memory', async () => documents),
      config,
      clock: () => new Date(instant),
      acceptedCount: () => edge.acceptedCount(),
    })
    const first = await builds(undefined, {kind: 'all'})
    edge.snapshotServed(first, new Date(instant))
    await edge.drained()

    const episode = documents.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
    documents = documents.map((document) => (document === episode ? {...document, title: 'פרק ששונה'} : document))
    expect(edge.changeAccepted()).toBe(true)
    const second = await builds(first, {kind: 'all'}) // started in the millisecond the change was accepted
    edge.snapshotServed(second, new Date(instant))
    await edge.drained()
    expect(edge.status()).toMatchObject({
      depth: 0,
      oldestUnpurgedAgeSeconds: null,
      lastPurgedVersion: second.snapshot.version,
    })

    // A change accepted while a build runs is not in it: it stays unplanned until its own build.
    documents = documents.map((document) =>
      document._id === episode?._id ? {...document, title: 'פרק ששונה שוב'} : document,
    )
    const running = builds(second, {kind: 'all'})
    expect(edge.changeAccepted()).toBe(true)
    const third = await running
    edge.snapshotServed(third, new Date(instant))
    await edge.drained()
    expect(edge.status().oldestUnpurgedAgeSeconds).toBe(0)
    edge.close()
  })
})

describe('what is at risk', () => {
  it('a change waiting for its purge longer than the edge TTL is overdue, in the status and the metrics', async () => {
    const config = loadConfig({
      CDN_PURGE: 'cloudflare',
      CLOUDFLARE_API_TOKEN: 't',
      CLOUDFLARE_ZONE_ID: '023e105f4ecef8ad9ca31a8372d0c353',
    }).edge
    if (!config) throw new Error('expected an edge configuration')
    let now = Date.parse('2026-11-26T22:00:00Z')
    const registry = new Registry()
    const edge = createEdgePurging({config, adapter: deferredAdapter().adapter, clock: () => now, registry})
    expect(edge.changeAccepted()).toBe(true) // accepted, never built: nothing planned, nothing sent
    now += config.queue.edgeMaxAgeSeconds * 1000 - 1000
    expect(edge.status().purgeOverdue).toBe(false)
    expect(await registry.metrics()).toMatch(/^catalog_cdn_purge_overdue 0$/m)
    now += 1000
    expect(edge.status().purgeOverdue).toBe(true)
    expect(await registry.metrics()).toMatch(/^catalog_cdn_purge_overdue 1$/m)
    expect(await registry.metrics()).toMatch(/^catalog_cdn_purge_queue_writable 1$/m)
    edge.close()
  })
})

describe('a purge queue whose disk refuses writes', () => {
  let disk: SmallDisk
  /** Closed before the disk goes, so no retry timer writes to the directory under it. */
  const opened: {close(): void}[] = []
  const track = <T extends {close(): void}>(closable: T): T => (opened.push(closable), closable)
  beforeEach(() => {
    disk = mountSmallDisk()
  })
  afterEach(() => {
    for (const closable of opened.splice(0)) closable.close()
    disk.unmount()
  })

  it('never throws, reports the failure once, sends its keys from memory, and writes them once space returns', async () => {
    const {adapter, calls} = deferredAdapter()
    const {logger, lines} = recordingLogger()
    const failures = () => lines.filter((line) => line.msg.startsWith('cannot write the purge queue in '))
    const restored = () => lines.filter((line) => line.msg === `the purge queue in ${disk.directory} is written again`)
    disk.fill()
    const queue = track(new PurgeQueue({adapter, directory: disk.directory, maxKeys: 100, writeRetryMs: 100, logger}))
    expect(queue.changeAccepted()).toBe(false)
    queue.enqueue(['episodes/ep-1'], 'v1')
    queue.enqueue(['episodes/ep-2'], 'v2')
    expect(failures()).toHaveLength(1)
    expect(failures()[0]?.err?.message).toMatch(/ENOSPC/)
    expect(queue.status()).toMatchObject({writable: false, writeError: expect.stringMatching(/ENOSPC/), depth: 2})
    expect(readdirSync(disk.directory)).toEqual(['filler']) // no partial file left behind
    await eventually(async () => expect(calls).toHaveLength(1))
    expect(calls[0]?.keys).toEqual(['episodes/ep-1', 'episodes/ep-2'])

    disk.free()
    await eventually(async () => expect(queue.status().writable).toBe(true)) // the timer writes, no change needed
    expect(restored()).toHaveLength(1)
    expect(JSON.parse(readFileSync(join(disk.directory, 'purge-queue.json'), 'utf8'))).toMatchObject({
      keys: ['episodes/ep-1', 'episodes/ep-2'],
      pendingVersion: 'v2',
    })
    calls[0]?.answer()
    await queue.drained()
    expect(JSON.parse(readFileSync(join(disk.directory, 'purge-queue.json'), 'utf8'))).toMatchObject({
      keys: [],
      lastPurgedVersion: 'v2',
    })
    queue.close()
  })

  it('starts on a read-only directory, serves its purges, and writes again once the directory is writable', async () => {
    const purged: string[][] = []
    const {logger, lines} = recordingLogger()
    const config = loadConfig({
      CDN_PURGE: 'cloudflare',
      CLOUDFLARE_API_TOKEN: 't',
      CLOUDFLARE_ZONE_ID: '023e105f4ecef8ad9ca31a8372d0c353',
    }).edge
    if (!config) throw new Error('expected an edge configuration')
    const build = catalogSnapshotBuilder({
      source: createEmbeddedSource('in memory', async () => sampleDocuments),
      config: loadConfig({}),
      clock: () => new Date(),
    })
    disk.readOnly()
    const edge = track(
      createEdgePurging({
        config,
        directory: disk.directory,
        adapter: {provider: 'test', purge: async (keys) => void purged.push([...keys])},
        writeRetryMs: 100,
        logger,
      }),
    )
    edge.snapshotServed({snapshot: await build(undefined, {kind: 'all'})}, new Date())
    expect(edge.changeAccepted()).toBe(false)
    await edge.drained()
    expect(purged).toEqual([['catalog']])
    const failures = lines.filter((line) => line.msg.startsWith('cannot write the purge queue in '))
    expect(failures).toHaveLength(1)
    expect(failures[0]?.err?.message).toMatch(/EROFS/)
    expect(edge.status()).toMatchObject({writable: false, purgeOverdue: false})
    disk.writable()
    await eventually(async () => expect(edge.status().writable).toBe(true))
    expect(existsSync(join(disk.directory, 'purge-queue.json'))).toBe(true)
    edge.close()
  })

  it('removes the temporary files a killed process left', () => {
    writeFileSync(join(disk.directory, 'purge-queue.json.12345.tmp'), '{"keys":')
    writeFileSync(join(disk.directory, 'unrelated.tmp'), 'kept')
    track(new PurgeQueue({adapter: deferredAdapter().adapter, directory: disk.directory, maxKeys: 100}))
    expect(readdirSync(disk.directory).sort()).toEqual(['unrelated.tmp'])
  })
})
