// Integration: a scheduled episode released on time by the server itself. The origin (started by
// the composition root, with its real clock and release timer) sits behind a real Varnish with
// vmod_xkey on loopback; the episode is published ahead of its release time by a signed webhook,
// and released with no webhook, by the timer armed for its release time: the API, its item, the
// feed, the sitemaps and MCP follow, and the edge is purged of the keys that changed and no others.
// A second scheduled episode gets an edit the server refuses before its release time: it is not
// released at that time, /status names it, and a valid version is served at its own time.
import {readFile} from 'node:fs/promises'
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import type {PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {varnishAdapter} from '../../server/edge/varnish-adapter.ts'
import {BULK_KEY, INDEX_KEY, itemKey, listKey, siteKey} from '../../server/snapshot/surrogate-keys.ts'
import {episode} from '../fixtures/documents.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'
import {originHealthyBehind, startVarnish, type RunningVarnish} from '../../support/varnish.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const TOKEN = 'purge-token-for-the-tests'
const SLUG = 'ep-40-scheduled'
const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

let origin: TestServer
let varnish: RunningVarnish
let mcp: Client
let documents: SanityDocument[] = [...sample]
let purged: string[][] = []

beforeAll(async () => {
  const varnishPort = await freePort()
  const adapter = varnishAdapter({urls: [`http://127.0.0.1:${varnishPort}/`], token: TOKEN})
  const recording: PurgeAdapter = {
    provider: adapter.provider,
    purge: async (keys) => {
      await adapter.purge(keys)
      purged.push([...keys])
    },
  }
  origin = await startTestServer({
    source: createEmbeddedSource('in-memory sample', async () => documents),
    environment: {
      SANITY_WEBHOOK_SECRET: SECRET,
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: `http://127.0.0.1:${varnishPort}/`,
      CDN_PURGE_TOKEN: TOKEN,
    },
    edge: {adapter: recording, retry: {initialDelayMs: 50, maxDelayMs: 300}},
    store: {retryDelayMs: 20},
  })
  varnish = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN, port: varnishPort})
  await originHealthyBehind(varnish)
  mcp = new Client({name: 'scheduled-release-test', version: '1.0.0'})
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${origin.baseUrl}/mcp`)))
}, 60_000)

afterAll(async () => {
  await mcp?.close()
  await varnish?.stop()
  await origin?.close()
})

const text = async (url: string) => (await rawRequest(url)).body.toString('utf8')
const served = (base: string) => ({
  list: () => text(`${base}/api/v1/episodes.json`),
  item: async () => (await rawRequest(`${base}/api/v1/episodes/${SLUG}.json`)).status,
  feed: () => text(`${base}/feed.xml`),
  sitemap: () => text(`${base}/sitemaps/episodes.xml`),
})
const mcpHas = async () => !(await mcp.callTool({name: 'get_episode', arguments: {slug: SLUG}})).isError

async function deliver(payload: {_id: string; _type: string}) {
  expect((await sendSignedWebhook(origin.baseUrl, SECRET, payload)).status).toBe(202)
}

describe('a scheduled episode', () => {
  it('is served nowhere before its release time, everywhere from it on, and purged exactly at the edge', async () => {
    const atOrigin = served(origin.baseUrl)
    const atEdge = served(varnish.url)
    const servedNowhere = async () => {
      expect(await atEdge.list()).not.toContain(SLUG)
      expect(await atEdge.feed()).not.toContain(SLUG)
      expect(await atEdge.sitemap()).not.toContain(SLUG)
      expect(await atOrigin.item()).toBe(404)
      expect(await atOrigin.list()).not.toContain(SLUG)
      expect(await atOrigin.feed()).not.toContain(SLUG)
      expect(await atOrigin.sitemap()).not.toContain(SLUG)
      expect(await mcpHas()).toBe(false)
    }
    // Published ahead of its release, as an editor schedules it: far enough ahead for the checks
    // below, timed once here on this machine as it is now, to run before it.
    const checksStarted = performance.now()
    await servedNowhere()
    const releaseAt = new Date(Date.now() + 5000 + 4 * (performance.now() - checksStarted))
    documents = [
      ...sample,
      episode(SLUG, {
        _id: 'scheduled-episode',
        _updatedAt: new Date().toISOString(),
        publishedAt: releaseAt.toISOString(),
        audioUrl: `https://media.codetalks.example/audio/${SLUG}.mp3`,
        audioLength: 1_000_000,
        audioType: 'audio/mpeg',
      }),
    ]
    const versionBefore = origin.store.current().version
    await deliver({_id: 'scheduled-episode', _type: 'episode'})
    await eventually(async () =>
      expect(origin.store.current().nextRelease).toEqual({at: releaseAt, documentIds: ['scheduled-episode']}),
    )
    expect(origin.store.current().version, 'holding it back changed nothing served').toBe(versionBefore)

    // Warm the edge with what the release will change, and with something it will not.
    await servedNowhere()
    await rawRequest(`${varnish.url}/api/v1/voices.json`)
    expect((await rawRequest(`${varnish.url}/api/v1/voices.json`)).headers['x-cache']).toBe('HIT')
    expect((await rawRequest(`${varnish.url}/api/v1/episodes.json`)).headers['x-cache']).toBe('HIT')
    expect(Date.now(), 'the checks before the release ran before it').toBeLessThan(releaseAt.getTime())
    await origin.edge?.drained()
    purged = []

    // No webhook from here on: the server's own timer releases it.
    await eventually(async () => expect(await atOrigin.list()).toContain(SLUG), 30_000)
    expect(Date.now(), 'not served before its release time').toBeGreaterThanOrEqual(releaseAt.getTime())
    expect(origin.store.status()).toMatchObject({
      lastBuild: {kind: 'documents', ok: true, documents: ['scheduled-episode']},
      consecutiveFailures: 0,
    })
    expect(await atOrigin.item()).toBe(200)
    expect(await atOrigin.feed()).toContain(`<pubDate>${releaseAt.toUTCString()}</pubDate>`)
    expect(await atOrigin.sitemap()).toContain(SLUG)
    expect(await mcpHas()).toBe(true)

    // The edge serves the new list once purged; what did not change stays cached.
    await eventually(async () => expect(await atEdge.list()).toContain(SLUG), 10_000)
    expect(await atEdge.feed()).toContain(SLUG)
    expect(await atEdge.item()).toBe(200)
    expect((await rawRequest(`${varnish.url}/api/v1/voices.json`)).headers['x-cache']).toBe('HIT')
    await origin.edge?.drained()
    const keys = new Set(purged.flat())
    for (const key of [itemKey('episodes', SLUG), listKey('episodes'), BULK_KEY, siteKey('/feed.xml')])
      expect(keys, key).toContain(key)
    for (const key of [listKey('voices'), listKey('meetups'), INDEX_KEY, itemKey('episodes', 'ep-3-schema-migrations')])
      expect(keys, key).not.toContain(key)
    expect(origin.store.current().nextRelease).toBeUndefined()
    expect(origin.loggedErrors).toEqual([])
  }, 120_000)
})

describe('a scheduled episode whose edit is refused before its release time', () => {
  it('is not released at the old time: the API answers 404 for it after that moment, and /status says why', async () => {
    const slug = 'ep-41-postponed'
    const id = 'postponed-episode'
    const version = (publishedAt: string) =>
      episode(slug, {
        _id: id,
        _updatedAt: new Date().toISOString(),
        publishedAt,
        audioUrl: `https://media.codetalks.example/audio/${slug}.mp3`,
        audioLength: 1_000_000,
        audioType: 'audio/mpeg',
      })
    const problemOf = async () => {
      const status = JSON.parse(await text(`${origin.baseUrl}/status`)) as {
        status: string
        problems: {document_id: string; severity: string; messages: string[]}[]
      }
      return {status: status.status, problem: status.problems.find((problem) => problem.document_id === id)}
    }
    const itemStatus = async () => (await rawRequest(`${origin.baseUrl}/api/v1/episodes/${slug}.json`)).status
    const publish = async (publishedAt: string, applied: () => Promise<void>) => {
      documents = [...documents.filter((document) => document._id !== id), version(publishedAt)]
      await deliver({_id: id, _type: 'episode'})
      await eventually(applied)
    }

    // Scheduled far ahead first, to time one publish on this machine as it is now; then for a
    // release ten such publishes and 5 s ahead, so the refused edit below arrives well before it.
    const timed = performance.now()
    await publish('2099-01-01T06:00:00.000Z', async () =>
      expect(origin.store.current().nextRelease?.documentIds).toEqual([id]),
    )
    const releaseAt = new Date(Date.now() + 5000 + 10 * (performance.now() - timed))
    await publish(releaseAt.toISOString(), async () =>
      expect(origin.store.current().nextRelease).toEqual({at: releaseAt, documentIds: [id]}),
    )

    // The edit meant to postpone it, which the server refuses: there is no 13th month.
    await publish('2026-13-01T00:00:00Z', async () => expect((await problemOf()).problem).toBeDefined())
    const refused = await problemOf()
    expect(refused.problem, 'refused before the old release time, so its release is held').toMatchObject({
      severity: 'rejected',
      messages: expect.arrayContaining([expect.stringMatching(/^release held: this edit was refused/)]),
    })
    expect(refused.status).toBe('degraded')
    expect(origin.store.current().nextRelease, 'no release is armed for it').toBeUndefined()

    // After the old release time, and after a build that follows it (the timer's, had it been
    // armed, came first): still not served, and /status still says why.
    const pastRelease = releaseAt.getTime() - Date.now() + 100
    if (pastRelease > 0) await new Promise((resolve) => setTimeout(resolve, pastRelease))
    await deliver({_id: id, _type: 'episode'})
    await eventually(async () => {
      const build = origin.store.status().lastBuild
      expect(build).toMatchObject({ok: true, documents: [id]})
      expect(build?.startedAt.getTime()).toBeGreaterThan(releaseAt.getTime())
    })
    expect(await itemStatus()).toBe(404)
    expect(await text(`${origin.baseUrl}/api/v1/episodes.json`)).not.toContain(slug)
    expect(await text(`${origin.baseUrl}/feed.xml`)).not.toContain(slug)
    expect(await mcp.callTool({name: 'get_episode', arguments: {slug}})).toMatchObject({isError: true})
    expect((await problemOf()).problem).toMatchObject({
      severity: 'rejected',
      messages: expect.arrayContaining([expect.stringMatching(/^release held: /)]),
    })

    // A valid version, typed without seconds and already past: served at once, in the full form.
    await publish('2026-01-01T10:00Z', async () => expect(await itemStatus()).toBe(200))
    const item = JSON.parse(await text(`${origin.baseUrl}/api/v1/episodes/${slug}.json`)) as {
      data: {published_at: string}
    }
    expect(item.data.published_at).toBe('2026-01-01T10:00:00.000Z')
    expect((await problemOf()).problem).toBeUndefined()
    expect(origin.loggedErrors).toEqual([])
  }, 120_000)
})
