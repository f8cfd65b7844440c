// Integration: the origin behind a real Varnish (Debian's varnishd with vmod_xkey) running the VCL
// `npm run edge:vcl` generates, both on loopback. Edits arrive as signed Sanity webhooks; the origin
// purges Varnish by surrogate key once the new snapshot is served, through a relay the test can cut
// to play a Varnish that is unreachable.
import {readFile} from 'node:fs/promises'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import type {PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {varnishAdapter} from '../../server/edge/varnish-adapter.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {purgeRelay, type PurgeRelay} from '../helpers/purge-relay.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'
import {originHealthyBehind, startVarnish, type RunningVarnish} from '../../support/varnish.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const TOKEN = 'purge-token-for-the-tests'
const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

let origin: TestServer
let varnish: RunningVarnish
let relay: PurgeRelay
let documents: SanityDocument[]
/** Every purge the origin sent (and Varnish confirmed), in order. */
let purged: string[][] = []

beforeAll(async () => {
  const varnishPort = await freePort()
  relay = purgeRelay(await freePort(), () => varnishPort)
  await relay.open()
  const recording = (adapter: PurgeAdapter): PurgeAdapter => ({
    provider: adapter.provider,
    purge: async (keys) => {
      await adapter.purge(keys)
      purged.push([...keys])
    },
  })
  const source = createEmbeddedSource('in-memory sample', async () => documents)
  documents = [...sample]
  origin = await startTestServer({
    source,
    observed: true,
    environment: {
      SANITY_WEBHOOK_SECRET: SECRET,
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: `http://127.0.0.1:${relay.port}/`,
      CDN_PURGE_TOKEN: TOKEN,
    },
    edge: {
      adapter: recording(varnishAdapter({urls: [`http://127.0.0.1:${relay.port}/`], token: TOKEN})),
      retry: {initialDelayMs: 50, maxDelayMs: 300},
    },
    store: {retryDelayMs: 20},
  })
  varnish = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN, port: varnishPort})
  await originHealthyBehind(varnish)
}, 60_000)

afterAll(async () => {
  await varnish?.stop()
  await relay?.close()
  await origin?.close()
})

beforeEach(async () => {
  // Each test starts from an empty edge and a settled queue.
  await origin.edge?.drained()
  expect(
    (await rawRequest(`${varnish.url}/`, {method: 'PURGE', headers: {'xkey-purge': 'catalog', 'purge-token': TOKEN}}))
      .status,
  ).toBe(200)
  purged = []
})
afterEach(() => expect(origin.loggedErrors).toEqual([]))

const edge = (path: string) => rawRequest(`${varnish.url}${path}`)
const json = (body: Buffer) => JSON.parse(body.toString('utf8'))
const requestLine = z.object({time: z.iso.datetime(), responseTime: z.number(), req: z.object({url: z.string()})})
/**
 * Requests for `path` the origin began answering after `since` (epoch ms), from its request log: the
 * line's time less its response time. A response still in its socket's buffer when written is logged
 * when it closes, which can be after its client has it, so counting lines alone would miss it.
 */
const originRequestsStartedAfter = (path: string, since: number) =>
  origin.logLines.filter((line) => {
    const request = requestLine.safeParse(JSON.parse(line)).data
    return request?.req.url === path && Date.parse(request.time) - request.responseTime > since
  }).length

async function deliver(payload: {_id: string; _type: string}) {
  expect((await sendSignedWebhook(origin.baseUrl, SECRET, payload)).status).toBe(202)
}

const idOf = (type: string, slug: string) =>
  sample.find(
    (document) =>
      document._type === type &&
      !document._id.startsWith('drafts.') &&
      JSON.stringify(document).includes(`"current":"${slug}"`),
  )?._id ?? ''
const edit = (id: string, change: Record<string, unknown>) => {
  documents = documents.map((document) =>
    document._id === id ? {...document, ...change, _updatedAt: new Date().toISOString()} : document,
  )
}

describe('Varnish in front of the origin', () => {
  it('serves a second GET from its cache, without the keys or the edge TTL, and with the browser max-age', async () => {
    const path = '/api/v1/episodes/ep-3-schema-migrations.json'
    const first = await edge(path)
    const second = await edge(path)
    expect(first.headers['x-cache']).toBe('MISS')
    expect(second.headers['x-cache']).toBe('HIT')
    expect(second.headers.age).toBeDefined()
    expect(second.body).toEqual(first.body)
    expect(second.headers['catalog-version']).toBe(origin.store.current().version)
    expect(second.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300, stale-if-error=86400')
    for (const edgeOnly of ['xkey', 'cdn-cache-control', 'surrogate-control'])
      expect(second.headers[edgeOnly], edgeOnly).toBeUndefined()
    const atOrigin = await rawRequest(`${origin.baseUrl}${path}`)
    expect(atOrigin.headers.xkey).toBe('catalog episodes/ep-3-schema-migrations')
    expect(atOrigin.headers['cdn-cache-control']).toBe('max-age=86400, stale-if-error=86400')
  })

  it('refuses a PURGE without the token, as problem+json', async () => {
    const response = await rawRequest(`${varnish.url}/`, {method: 'PURGE', headers: {'xkey-purge': 'catalog'}})
    expect(response.status).toBe(403)
    expect(response.headers['content-type']).toBe('application/problem+json')
    expect(json(response.body)).toMatchObject({status: 403})
  })

  it('an episode edit is fresh at the edge (item, list, bulk), while untouched documents stay cached', async () => {
    const edited = '/api/v1/episodes/ep-3-schema-migrations.json'
    const untouched = [
      '/api/v1/episodes/ep-4-supply-chain-security.json',
      '/api/v1/voices.json',
      '/api/v1/meetups.json',
      '/api/v1/index.json',
    ]
    const changed = [
      edited,
      '/api/v1/episodes.json',
      '/api/v1/all.json',
      '/api/v1/episodes.json?limit=2&cursor=' +
        String(json((await rawRequest(`${origin.baseUrl}/api/v1/episodes.json?limit=2`)).body).pagination.next_cursor),
    ]
    for (const path of [...untouched, ...changed]) expect((await edge(path)).status, path).toBe(200)
    for (const path of [...untouched, ...changed]) expect((await edge(path)).headers['x-cache'], path).toBe('HIT')
    const cached = Date.now()

    edit(idOf('episode', 'ep-3-schema-migrations'), {title: 'פרק 3: מיגרציות, מהדורה מתוקנת'})
    await deliver({_id: idOf('episode', 'ep-3-schema-migrations'), _type: 'episode'})
    await eventually(
      async () => expect(json((await edge(edited)).body).data.title).toBe('פרק 3: מיגרציות, מהדורה מתוקנת'),
      5000,
    )
    await origin.edge?.drained()
    const version = origin.store.current().version
    for (const path of changed) {
      const response = await edge(path)
      expect(response.headers['catalog-version'], path).toBe(version)
    }
    expect(JSON.stringify(json((await edge('/api/v1/episodes.json')).body))).toContain('מהדורה מתוקנת')
    expect(JSON.stringify(json((await edge('/api/v1/all.json')).body))).toContain('מהדורה מתוקנת')
    for (const path of untouched) {
      expect((await edge(path)).headers['x-cache'], path).toBe('HIT')
      expect(originRequestsStartedAfter(path, cached), path).toBe(0)
    }
    const metrics = await (await fetch(`${origin.baseUrl}/metrics`)).text()
    expect(Number(/^catalog_cdn_purges_total\{result="sent"\} (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0)
    expect(Number(/^catalog_cdn_webhook_to_purge_seconds_count (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0)
    expect(Number(/^catalog_cdn_keys_per_purge_count (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0)
    expect(metrics).toMatch(/^catalog_cdn_purge_queue_keys 0$/m)
  })

  it('a voice rename purges exactly the documents whose bytes changed', async () => {
    const voiceId = idOf('voice', 'nir-weiss')
    // A search answer that shows the voice: every search answer is purged with any item's change.
    const name = origin.store.current().catalog.voices.find((entry) => entry.value.slug === 'nir-weiss')?.value.name
    const search = `/api/v1/search.json?q=${encodeURIComponent(name ?? 'nir-weiss')}`
    const documentPaths = () => [
      ...origin.store.current().paths.map((path) => `/api/v1/${path}`),
      ...origin.store.current().sitePaths,
      search,
    ]
    const etags = async (paths: readonly string[]) =>
      new Map(
        await Promise.all(
          paths.map(async (path) => [path, (await rawRequest(`${origin.baseUrl}${path}`)).headers.etag] as const),
        ),
      )
    const pathsBefore = documentPaths()
    // Documents the rename leaves alone, cached at the edge: they must still be hits afterwards.
    const untouched = ['/api/v1/voices/dan-shapira.json', '/api/v1/index.json']
    for (const path of untouched) await edge(path)

    // The slug is what episodes and meetups show of a voice (PersonRef), so renaming it changes them.
    edit(voiceId, {slug: {_type: 'slug', current: 'nir-weiss-redis'}})
    const before = await etags(pathsBefore)
    await deliver({_id: voiceId, _type: 'voice'})
    await eventually(async () =>
      expect((await rawRequest(`${origin.baseUrl}/api/v1/voices/nir-weiss-redis.json`)).status).toBe(200),
    )
    await origin.edge?.drained()
    const everything = [...new Set([...pathsBefore, ...documentPaths()])]
    const after = await etags(everything)
    const keyOf = (path: string) =>
      path === search
        ? 'search'
        : path.startsWith('/api/v1/')
          ? ({'all.json': 'all', 'index.json': 'index'}[path.slice(8)] ?? path.slice(8).replace(/\.json$/, ''))
          : `site${path}`
    const expected = everything.filter((path) => before.get(path) !== after.get(path)).map(keyOf)
    expect(expected).toEqual(expect.arrayContaining(['voices/nir-weiss', 'voices/nir-weiss-redis', 'voices', 'all']))
    expect(expected.filter((key) => key.startsWith('episodes/')).length).toBeGreaterThan(0)
    expect(purged.flat().sort()).toEqual([...new Set(expected)].sort())
    for (const path of untouched) expect((await edge(path)).headers['x-cache'], path).toBe('HIT')
  })

  it('a purge that finds Varnish unreachable is retried until it answers, and nothing is left stale', async () => {
    const path = '/api/v1/episodes/ep-5-observability.json'
    const slugPath =
      (await rawRequest(`${origin.baseUrl}${path}`)).status === 200
        ? path
        : '/api/v1/episodes/ep-3-schema-migrations.json'
    const slug = /episodes\/(.+)\.json$/.exec(slugPath)?.[1] ?? ''
    await edge(slugPath)
    expect((await edge(slugPath)).headers['x-cache']).toBe('HIT')
    await relay.close()
    const failedBefore = origin.edge?.status().purgesFailed ?? 0
    edit(idOf('episode', slug), {title: 'כותרת חדשה בזמן שהמטמון לא עונה'})
    await deliver({_id: idOf('episode', slug), _type: 'episode'})
    await eventually(
      async () => expect(origin.edge?.status().purgesFailed).toBeGreaterThanOrEqual(failedBefore + 2),
      5000,
    )
    expect(origin.edge?.status().depth).toBeGreaterThan(0)
    const status = z
      .object({edge: z.object({queue_depth: z.number(), oldest_unpurged_age_seconds: z.number().nullable()})})
      .parse(await (await fetch(`${origin.baseUrl}/status`)).json())
    expect(status.edge.queue_depth).toBeGreaterThan(0)
    expect(json((await edge(slugPath)).body).data.title).not.toBe('כותרת חדשה בזמן שהמטמון לא עונה') // stale while unreachable
    await relay.open()
    await origin.edge?.drained()
    expect(json((await edge(slugPath)).body).data.title).toBe('כותרת חדשה בזמן שהמטמון לא עונה')
    expect(origin.edge?.status()).toMatchObject({
      depth: 0,
      lastPurgedVersion: origin.store.current().version,
      deadLetters: [],
    })
  })
})
