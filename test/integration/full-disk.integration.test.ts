// Integration: the origin with CDN purging and its purge queue on a real 2 MB tmpfs the test fills
// (mount(8), so root; ENOSPC comes from the kernel), over real HTTP on loopback, with a stand-in
// of Varnish's PURGE endpoint. The server is the composition npm start runs (startTestServer).
import {readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {eventually} from '../../support/eventually.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {postWebhook, signWebhook, type SignedDelivery} from '../helpers/signed-webhook.ts'
import {mountSmallDisk, type SmallDisk} from '../helpers/small-disk.ts'

const SECRET = 'a-webhook-secret-of-some-length'
let disk: SmallDisk
let standIn: Server
let origin: TestServer
let baseUrl: string
let documents: SanityDocument[] = [...sampleDocuments]
const purges: string[] = []
/** What the stand-in answers a PURGE with. */
let purgeStatus = 200

beforeAll(async () => {
  disk = mountSmallDisk()
  disk.fill()
  standIn = createServer((request, response) => {
    purges.push(String(request.headers['xkey-purge']))
    response.writeHead(purgeStatus, {'content-type': 'text/plain'}).end()
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  origin = await startTestServer({
    source: createEmbeddedSource('in-memory sample', async () => documents),
    store: {retryDelayMs: 20},
    edge: {retry: {initialDelayMs: 50, maxDelayMs: 200}, writeRetryMs: 200},
    environment: {
      SANITY_WEBHOOK_SECRET: SECRET,
      SNAPSHOT_DIR: disk.directory,
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/`,
      CDN_PURGE_TOKEN: 'purge-token-for-the-tests',
    },
  })
  baseUrl = origin.baseUrl
}, 30_000)

afterAll(async () => {
  await origin?.close()
  await new Promise<void>((resolve) => (standIn ? standIn.close(() => resolve()) : resolve()))
  disk?.unmount()
})

const edge = () => {
  if (!origin.edge) throw new Error('expected CDN purging')
  return origin.edge
}
const writeFailures = () => origin.logLines.filter((line) => line.includes('cannot write the purge queue'))
const episodeId =
  sampleDocuments.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))?._id ?? ''
const status = async () => (await (await fetch(`${baseUrl}/status`)).json()) as {edge: Record<string, unknown>}
const queueFile = () => JSON.parse(readFileSync(join(disk.directory, 'purge-queue.json'), 'utf8')) as {keys: string[]}

/** Sends a delivery as Sanity does, and again as its redelivery: the same body, signature and idempotency key. */
async function deliver(delivery: SignedDelivery) {
  const response = await postWebhook(baseUrl, delivery, 'a-delivery-on-a-full-disk')
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    type: response.headers.get('content-type'),
  }
}

describe('a purge queue on a full disk', () => {
  it('starts and serves, reporting once that the queue cannot be written, and purges everything from memory', async () => {
    expect((await fetch(`${baseUrl}/api/v1/index.json`)).status).toBe(200)
    await edge().drained()
    expect(purges).toEqual(['catalog'])
    expect(writeFailures()).toHaveLength(1)
    expect((await status()).edge).toMatchObject({
      queue_writable: false,
      queue_write_error: expect.stringMatching(/ENOSPC/),
    })
    expect(await (await fetch(`${baseUrl}/metrics`)).text()).toMatch(/^catalog_cdn_purge_queue_writable 0$/m)
  })

  it('answers a webhook it cannot record with 503, still rebuilds and purges, and acknowledges the redelivery once space returns', async () => {
    purgeStatus = 503 // the CDN is down too, so the keys wait in the queue
    const versionBefore = origin.store.current().version
    documents = documents.map((document) =>
      document._id === episodeId ? {...document, title: 'פרק שנערך על דיסק מלא'} : document,
    )
    const delivery = await signWebhook({_id: episodeId, _type: 'episode'}, SECRET)
    expect(await deliver(delivery)).toEqual({
      status: 503,
      retryAfter: '30',
      type: 'application/problem+json; charset=utf-8',
    })
    await eventually(async () => expect(origin.store.current().version).not.toBe(versionBefore), 5_000)
    await eventually(async () => expect(purges.length).toBeGreaterThan(1), 5_000)
    expect((await status()).edge).toMatchObject({queue_writable: false})
    expect(edge().status().depth).toBeGreaterThan(0)

    disk.free()
    // Queued keys reach the disk without a new change (the retry timer), and the redelivery is acknowledged.
    await eventually(async () => expect(queueFile().keys.length).toBeGreaterThan(0), 5_000)
    expect(queueFile().keys).toContain('episodes')
    expect(await deliver(delivery)).toMatchObject({status: 202})
    expect((await status()).edge).toMatchObject({queue_writable: true, queue_write_error: null})

    purgeStatus = 200
    await edge().drained()
    expect(queueFile().keys).toEqual([])
    expect(origin.loggedErrors).toEqual([])
  }, 30_000)
})
