// Integration: a purge call still out when the next edit is served, on a real Varnish (Debian's
// varnishd with vmod_xkey and the generated VCL). The origin purges through a stand-in in front of
// Varnish that passes each PURGE on at once but holds Varnish's answer until the test lets it go:
// Varnish has dropped edit 0 and cached edit 1 by the time the origin serves edit 2 and hears that
// the first purge was done. The key queued for edit 2 must still be purged.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {startVarnish, type RunningVarnish} from '../../support/varnish.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const TOKEN = 'purge-token-for-the-tests'
const PATH = '/api/v1/episodes/ep-3-schema-migrations.json'
/**
 * A lost purge leaves edit 1 at the edge for its TTL, a day; a purge that goes out takes well
 * under a second (`bench:edge` measures that). Only the lost purge outlasts this wait, a busy
 * machine does not; it is also how long each step of the edit waits for what follows at once.
 */
const LIVENESS_MS = 20_000

let origin: TestServer
let varnish: RunningVarnish
let purger: Server
let documents: SanityDocument[] = [...sampleDocuments]
/** While set, Varnish's answers to PURGE are held until it resolves. */
let hold: Promise<undefined> | undefined
const purgesPassedOn: string[] = []

beforeAll(async () => {
  const varnishPort = await freePort()
  purger = createServer((request, response) => {
    const keys = String(request.headers['xkey-purge'] ?? '')
    purgesPassedOn.push(keys)
    const held = hold
    fetch(`http://127.0.0.1:${varnishPort}/`, {
      method: 'PURGE',
      headers: {'xkey-purge': keys, 'purge-token': String(request.headers['purge-token'] ?? '')},
    })
      .then(async (answer) => {
        const body = await answer.text()
        await held
        response
          .writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'text/plain'})
          .end(body)
      })
      .catch(() => response.writeHead(502).end())
  })
  await new Promise<void>((resolve) => purger.listen(0, '127.0.0.1', resolve))
  const purgeUrl = `http://127.0.0.1:${(purger.address() as AddressInfo).port}/`
  origin = await startTestServer({
    source: createEmbeddedSource('in-memory sample', async () => documents),
    environment: {
      SANITY_WEBHOOK_SECRET: SECRET,
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: purgeUrl,
      CDN_PURGE_TOKEN: TOKEN,
    },
    edge: {retry: {initialDelayMs: 50, maxDelayMs: 300}},
    store: {retryDelayMs: 20},
  })
  varnish = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN, port: varnishPort})
}, 60_000)

afterAll(async () => {
  await varnish?.stop()
  await origin?.close()
  await new Promise<void>((resolve) => (purger ? purger.close(() => resolve()) : resolve()))
})

const titleAt = async (base: string) =>
  String(JSON.parse((await rawRequest(`${base}${PATH}`)).body.toString('utf8')).data.title)
const episodeId =
  sampleDocuments.find(
    (document) =>
      document._type === 'episode' &&
      !document._id.startsWith('drafts.') &&
      JSON.stringify(document).includes('"current":"ep-3-schema-migrations"'),
  )?._id ?? ''

async function publish(title: string) {
  documents = documents.map((document) =>
    document._id === episodeId ? {...document, title, _updatedAt: new Date().toISOString()} : document,
  )
  expect((await sendSignedWebhook(origin.baseUrl, SECRET, {_id: episodeId, _type: 'episode'})).status).toBe(202)
}

describe('an edit served while the purge of the one before is still out', () => {
  it('reaches the edge within its freshness bound, not after the edge TTL', async () => {
    await origin.edge?.drained()
    const before = await titleAt(varnish.url)
    // Polled: on a busy machine one read can pass the cache (a slow health probe, a response not yet cacheable).
    await expect.poll(async () => (await rawRequest(`${varnish.url}${PATH}`)).headers['x-cache']).toBe('HIT')

    const gate = Promise.withResolvers<undefined>()
    hold = gate.promise
    try {
      const passedOn = purgesPassedOn.length
      await publish('פרק 3: עריכה ראשונה')
      await eventually(async () => expect(purgesPassedOn.length).toBeGreaterThan(passedOn), LIVENESS_MS)
      // Varnish dropped the old bytes; the next read caches edit 1 while the purge call is still out.
      await eventually(async () => expect(await titleAt(varnish.url)).toBe('פרק 3: עריכה ראשונה'), LIVENESS_MS)
      expect(before).not.toBe('פרק 3: עריכה ראשונה')
      expect((await rawRequest(`${varnish.url}${PATH}`)).headers['x-cache']).toBe('HIT')

      await publish('פרק 3: עריכה שנייה')
      await eventually(async () => expect(await titleAt(origin.baseUrl)).toBe('פרק 3: עריכה שנייה'), LIVENESS_MS)
    } finally {
      hold = undefined
      gate.resolve(undefined)
    }
    await eventually(async () => expect(await titleAt(varnish.url)).toBe('פרק 3: עריכה שנייה'), LIVENESS_MS)
    await origin.edge?.drained()
    expect(origin.edge?.status()).toMatchObject({depth: 0, lastPurgedVersion: origin.store.current().version})
  }, 120_000)
})
