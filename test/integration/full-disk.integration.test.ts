// Integration: the origin with CDN purging and its purge queue on a real 2 MB tmpfs the test fills
// (mount(8), so root; ENOSPC comes from the kernel), over real HTTP on loopback, with a stand-in
// of Varnish's PURGE endpoint. The pieces are put together here as main.ts must order them once
// it adopts `acceptChange` and `markBuilds`: test/helpers/server.ts acknowledges every webhook.
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {encodeSignatureHeader} from '@sanity/webhook'
import type {Registry} from 'prom-client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {acceptChange} from '../../server/app.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {createCatalogServer} from '../../server/catalog-server.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {registerEdgeMetrics} from '../../server/edge/edge-metrics.ts'
import {createEdgePurging, type EdgeMetrics, type EdgePurging} from '../../server/edge/edge-purging.ts'
import {createMetrics} from '../../server/observability/metrics.ts'
import {createSnapshotStore, type SnapshotStore} from '../../server/snapshot/store.ts'
import {eventually} from '../helpers/eventually.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {mountSmallDisk, type SmallDisk} from '../helpers/small-disk.ts'

const SECRET = 'a-webhook-secret-of-some-length'
let disk: SmallDisk
let standIn: Server
let origin: Server
let baseUrl: string
let edge: EdgePurging
let store: SnapshotStore
let documents: SanityDocument[] = [...sampleDocuments]
const purges: string[] = []
/** What the stand-in answers a PURGE with. */
let purgeStatus = 200
const writeFailures: unknown[] = []
const loggedErrors: unknown[] = []

beforeAll(async () => {
  disk = mountSmallDisk()
  disk.fill()
  standIn = createServer((request, response) => {
    purges.push(String(request.headers['xkey-purge']))
    response.writeHead(purgeStatus, {'content-type': 'text/plain'}).end()
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://api.test',
    RATE_LIMIT_QUOTA: '1000000',
    SANITY_WEBHOOK_SECRET: SECRET,
    CDN_PURGE: 'varnish',
    CDN_PURGE_URLS: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/`,
    CDN_PURGE_TOKEN: 'purge-token-for-the-tests',
  })
  if (!config.edge) throw new Error('expected an edge configuration')
  const clock = () => new Date()
  let edgeMetrics: EdgeMetrics | undefined
  const metrics = createMetrics({
    store: () => store,
    clock,
    cacheBytes: () => ({pages: 0, variants: 0}),
    register: (registry: Registry) => void (edgeMetrics = registerEdgeMetrics(registry, () => edge.status())),
  })
  edge = createEdgePurging({
    config: config.edge,
    directory: disk.directory,
    metrics: edgeMetrics,
    retry: {initialDelayMs: 50, maxDelayMs: 200},
    writeRetryMs: 200,
    onWriteFailure: (error) => void writeFailures.push(error),
  })
  const build = edge.markBuilds(catalogSnapshotBuilder({source: createEmbeddedSource('in-memory sample', async () => documents), config, clock, keying: edge.keying}))
  const startedAt = clock()
  store = await createSnapshotStore(build, {clock, retryDelayMs: 20, onBuild: (outcome) => outcome.ok && edge.snapshotServed(store.current(), outcome.startedAt)})
  edge.snapshotServed(store.current(), startedAt)
  ;({server: origin} = createCatalogServer({
    store,
    config,
    clock,
    metrics,
    logError: (error) => void loggedErrors.push(error),
    edgeStatus: () => edge.status(),
    onContentChange: (change) => acceptChange(change, {store, edge}),
  }))
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
}, 30_000)

afterAll(async () => {
  edge?.close()
  store?.close()
  origin?.closeAllConnections()
  await new Promise<void>((resolve) => (origin ? origin.close(() => resolve()) : resolve()))
  await new Promise<void>((resolve) => (standIn ? standIn.close(() => resolve()) : resolve()))
  disk?.unmount()
})

const episodeId = sampleDocuments.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))?._id ?? ''
const status = async () => (await (await fetch(`${baseUrl}/status`)).json()) as {edge: Record<string, unknown>}
const queueFile = () => JSON.parse(readFileSync(join(disk.directory, 'purge-queue.json'), 'utf8')) as {keys: string[]}

async function deliver(body: string, signature: string) {
  const response = await fetch(`${baseUrl}/webhooks/sanity`, {method: 'POST', headers: {'content-type': 'application/json', 'sanity-webhook-signature': signature}, body})
  return {status: response.status, retryAfter: response.headers.get('retry-after'), type: response.headers.get('content-type')}
}

describe('a purge queue on a full disk', () => {
  it('starts and serves, reporting once that the queue cannot be written, and purges everything from memory', async () => {
    expect((await fetch(`${baseUrl}/api/v1/index.json`)).status).toBe(200)
    await edge.drained()
    expect(purges).toEqual(['catalog'])
    expect(writeFailures).toHaveLength(1)
    expect((await status()).edge).toMatchObject({queue_writable: false, queue_write_error: expect.stringMatching(/ENOSPC/)})
    expect(await (await fetch(`${baseUrl}/metrics`)).text()).toMatch(/^catalog_cdn_purge_queue_writable 0$/m)
  })

  it('answers a webhook it cannot record with 503, still rebuilds and purges, and acknowledges the redelivery once space returns', async () => {
    purgeStatus = 503 // the CDN is down too, so the keys wait in the queue
    const versionBefore = store.current().version
    documents = documents.map((document) => (document._id === episodeId ? {...document, title: 'פרק שנערך על דיסק מלא'} : document))
    const body = JSON.stringify({_id: episodeId, _type: 'episode'})
    const signature = await encodeSignatureHeader(body, Date.now(), SECRET)
    expect(await deliver(body, signature)).toEqual({status: 503, retryAfter: '30', type: 'application/problem+json; charset=utf-8'})
    await eventually(async () => expect(store.current().version).not.toBe(versionBefore), 5_000)
    await eventually(async () => expect(purges.length).toBeGreaterThan(1), 5_000)
    expect((await status()).edge).toMatchObject({queue_writable: false})
    expect(edge.status().depth).toBeGreaterThan(0)

    disk.free()
    // Queued keys reach the disk without a new change (the retry timer), and the redelivery is acknowledged.
    await eventually(async () => expect(queueFile().keys.length).toBeGreaterThan(0), 5_000)
    expect(queueFile().keys).toContain('episodes')
    expect(await deliver(body, signature)).toMatchObject({status: 202})
    expect((await status()).edge).toMatchObject({queue_writable: true, queue_write_error: null})

    purgeStatus = 200
    await edge.drained()
    expect(queueFile().keys).toEqual([])
    expect(loggedErrors).toEqual([])
  }, 30_000)
})
