// Integration: two replicas (`server/main.ts` processes) sharing a real Redis, behind a real Varnish
// that balances between them with the VCL `npm run edge:vcl` generates. Each replica reads its own
// stand-in of Sanity's query API, so the test can hold one replica back: its source has not yet
// got the edit the other one serves. A purge sent then would let Varnish fetch the old bytes again
// from the lagging replica and keep them for a day; it must wait until both serve the edit.
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startRedis, type RedisServer} from '../../support/redis.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {startVarnish, type RunningVarnish} from '../../support/varnish.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-for-the-edge-replicas'
const TOKEN = 'purge-token-for-the-replica-test'
const EPISODE_PATH = '/api/v1/episodes/ep-1-why-we-started.json'
const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
const statusSchema = z.object({edge: z.object({queue_depth: z.number(), purges_sent: z.number()})})

/** What each replica's source holds: the lagging one gets the edit later. */
const sources: {leading: SanityDocument[]; lagging: SanityDocument[]} = {leading: [...sample], lagging: [...sample]}
let standIns: Awaited<ReturnType<typeof startSanityStandIn>>[]
let redis: RedisServer
let varnish: RunningVarnish
let leading: MainProcess
let lagging: MainProcess

beforeAll(async () => {
  standIns = await Promise.all([
    startSanityStandIn(() => sources.leading, {dataset: 'production'}),
    startSanityStandIn(() => sources.lagging, {dataset: 'production'}),
  ])
  redis = await startRedis()
  const varnishPort = await freePort()
  const environment = (apiHost: string) => ({
    PORT: '0',
    PUBLIC_BASE_URL: 'https://api.example', // shared, so both replicas make the same bytes and ETags
    SANITY_PROJECT_ID: 'embedded',
    SANITY_API_HOST: apiHost,
    SANITY_WEBHOOK_SECRET: SECRET,
    REDIS_URL: redis.url,
    RECONCILE_INTERVAL_SECONDS: '0',
    CDN_PURGE: 'varnish',
    CDN_PURGE_URLS: `http://127.0.0.1:${varnishPort}/`,
    CDN_PURGE_TOKEN: TOKEN,
  })
  const [leadingStandIn, laggingStandIn] = standIns
  if (!leadingStandIn || !laggingStandIn) throw new Error('two stand-ins')
  ;[leading, lagging] = await Promise.all([
    startMainProcess(environment(leadingStandIn.apiHost)),
    startMainProcess(environment(laggingStandIn.apiHost)),
  ])
  varnish = await startVarnish({
    backends: [leading, lagging].map((replica) => new URL(replica.baseUrl).host),
    token: TOKEN,
    port: varnishPort,
  })
}, 60_000)
afterAll(async () => {
  await varnish?.stop()
  await Promise.all([leading?.stop(), lagging?.stop()])
  await Promise.all([redis?.stop(), ...(standIns ?? []).map((standIn) => standIn.close())])
})

const throughVarnish = async () => {
  const response = await rawRequest(`${varnish.url}${EPISODE_PATH}`)
  return {
    cache: response.headers['x-cache'],
    title: itemEnvelope(episodeSchema).parse(JSON.parse(response.body.toString('utf8'))).data.title,
  }
}
const titleAt = async (replica: MainProcess) =>
  itemEnvelope(episodeSchema).parse(await (await fetch(`${replica.baseUrl}${EPISODE_PATH}`)).json()).data.title
const edgeStatus = async (replica: MainProcess) =>
  statusSchema.parse(await (await fetch(`${replica.baseUrl}/status`)).json()).edge

function retitled(documents: SanityDocument[], title: string): SanityDocument[] {
  return documents.map((document) =>
    document._type === 'episode' && JSON.stringify(document.slug).includes('"ep-1-why-we-started"')
      ? {...document, title}
      : document,
  )
}
async function deliver(replica: MainProcess, documentId: string) {
  expect((await sendSignedWebhook(replica.baseUrl, SECRET, {_id: documentId, _type: 'episode'})).status).toBe(202)
}

describe('two replicas sharing Redis behind Varnish', () => {
  it('hold the purge of an edit until both serve it, so the edge never fetches the old bytes again from the lagging one', async () => {
    const original = await titleAt(leading)
    // Each replica's start purges everything once (Varnish started after them: retried until it answers).
    for (const replica of [leading, lagging])
      await eventually(async () => expect((await edgeStatus(replica)).queue_depth).toBe(0), 15_000)
    await eventually(async () => expect((await throughVarnish()).cache).toBe('HIT'), 10_000)
    const sentBefore = (await edgeStatus(leading)).purges_sent
    const edited = sample.find(
      (document) => document._type === 'episode' && JSON.stringify(document.slug).includes('"ep-1-why-we-started"'),
    )
    if (!edited) throw new Error('no ep-1 in the sample')
    const title = `${original} (נערך)`

    // The leading replica's source has the edit; the webhook reaches it and is fanned out to the
    // lagging one, whose source does not have it yet.
    sources.leading = retitled(sources.leading, title)
    await deliver(leading, edited._id)
    await eventually(async () => expect(await titleAt(leading)).toBe(title), 5_000)
    expect(await titleAt(lagging)).toBe(original)
    // Held: the keys wait, nothing is purged, and the edge goes on answering from its cache.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const held = await edgeStatus(leading)
    expect(held.queue_depth).toBeGreaterThan(0)
    expect(held.purges_sent).toBe(sentBefore)
    expect(await throughVarnish()).toEqual({cache: 'HIT', title: original})

    // The lagging replica catches up: the purge goes out, and from the first read that shows the
    // edit, every read does.
    sources.lagging = retitled(sources.lagging, title)
    await deliver(lagging, edited._id)
    await eventually(async () => expect((await throughVarnish()).title).toBe(title), 5_000)
    for (let read = 0; read < 20; read++) expect((await throughVarnish()).title).toBe(title)
    // The held purge goes too (the lagging replica's own may have reached Varnish first).
    await eventually(async () => expect((await edgeStatus(leading)).purges_sent).toBeGreaterThan(sentBefore), 5_000)
  }, 60_000)
})
