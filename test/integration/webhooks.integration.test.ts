import {createHash} from 'node:crypto'
// Integration: the real app on a loopback port with SANITY_WEBHOOK_SECRET set, over an in-memory
// copy of the sample dataset that each test edits as an editor would, then announces with a
// delivery signed by @sanity/webhook exactly as Sanity signs it.
import {readFile} from 'node:fs/promises'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {bulkSchema, episodeSchema, itemEnvelope, listEnvelope} from '../../catalog/v1/contract.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import type {BuildOutcome} from '../../server/snapshot/store.ts'
import {episode} from '../fixtures/documents.ts'
import {eventually} from '../../support/eventually.ts'
import {readContract, readProblem} from '../helpers/contract.ts'
import {sampleCounts} from '../helpers/sample.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'
import {postWebhook, sendSignedWebhook, signWebhook, type WebhookOptions} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
let server: TestServer
let documents: SanityDocument[]
let failReads: boolean
/** Every build the store finished, in order: how a test knows what a delivery triggered. */
let builds: BuildOutcome[]
const sample = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)

beforeEach(async () => {
  documents = [...sample]
  failReads = false
  // Each server records into its own array: a build a previous test's server finishes late must not count here.
  const recorded: BuildOutcome[] = []
  builds = recorded
  const source = createEmbeddedSource('in-memory sample', async () => {
    if (failReads) throw new Error('Sanity is unreachable')
    return documents
  })
  server = await startTestServer({
    source,
    environment: {SANITY_WEBHOOK_SECRET: SECRET},
    store: {retryDelayMs: 20},
    onBuild: (outcome) => recorded.push(outcome),
  })
})
afterEach(() => server.close())

/** A delivery signed with this server's secret, or with `secret` (one the server does not hold). */
const deliver = (payload: unknown, options: WebhookOptions & {secret?: string} = {}) =>
  sendSignedWebhook(server.baseUrl, options.secret ?? SECRET, payload, options)

/**
 * Delivers a sentinel edit and waits for its build. Builds never overlap and a delivery's rebuild
 * is asked for before its answer is sent, so any build an earlier delivery caused is recorded by then.
 */
async function settleBuilds(): Promise<BuildOutcome[]> {
  const sentinel = idOf('ep-12-audio-at-scale')
  expect(sentinel).not.toBe('')
  expect((await deliver({_id: sentinel, _type: 'episode'})).status).toBe(202)
  await eventually(async () => expect(builds.some((outcome) => outcome.documents?.includes(sentinel))).toBe(true))
  return builds.filter(
    (outcome) =>
      !(outcome.kind === 'documents' && outcome.documents?.length === 1 && outcome.documents[0] === sentinel),
  )
}

const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init)

const statusSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  last_build: z.object({ok: z.boolean(), error: z.string().nullable()}).loose().nullable(),
  next_retry_at: z.string().nullable(),
  problems: z.array(
    z.object({document_id: z.string(), collection: z.string(), severity: z.string(), messages: z.array(z.string())}),
  ),
})
const readStatus = async () => statusSchema.parse(await (await get('/status')).json())
const idOf = (slug: string) =>
  sample.find(
    (document) =>
      document._type === 'episode' &&
      !document._id.startsWith('drafts.') &&
      JSON.stringify(document).includes(`"current":"${slug}"`),
  )?._id ?? ''

describe('signed deliveries', () => {
  it('publishes a new episode, with a one-document rebuild', async () => {
    documents = [
      ...documents,
      episode('ep-40-brand-new', {_id: 'new-episode', publishedAt: '2026-11-01', title: 'פרק 40: חדש לגמרי'}),
    ]
    const response = await deliver({_id: 'new-episode', _type: 'episode'})
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({status: 'accepted', rebuild: 'document'})
    await eventually(async () => {
      const {data} = await readContract(await get('/api/v1/episodes/ep-40-brand-new.json'), itemEnvelope(episodeSchema))
      expect(data.title).toBe('פרק 40: חדש לגמרי')
    })
    const bulk = await readContract(await get('/api/v1/all.json'), bulkSchema)
    expect(bulk.data.episodes[0]?.slug).toBe('ep-40-brand-new')
    expect(bulk.counts.episodes).toBe(sampleCounts.episodes + 1)
    expect(server.store.status().lastBuild).toMatchObject({kind: 'documents', ok: true, documents: ['new-episode']})
  })

  it('shows an edit, and only the representations whose bytes changed get new validators', async () => {
    const editedId = idOf('ep-3-schema-migrations')
    const before = Object.fromEntries(
      await Promise.all(
        [
          '/api/v1/episodes/ep-3-schema-migrations.json',
          '/api/v1/episodes/ep-4-supply-chain-security.json',
          '/api/v1/voices.json',
          '/api/v1/meetups.json',
          '/api/v1/all.json',
        ].map(async (path) => [path, (await get(path)).headers.get('etag')] as const),
      ),
    )
    documents = documents.map((document) =>
      document._id === editedId
        ? {...document, title: 'פרק 3: מיגרציות, מהדורה מתוקנת', _updatedAt: new Date().toISOString()}
        : document,
    )
    expect((await deliver({_id: editedId, _type: 'episode'})).status).toBe(202)
    await eventually(async () => {
      const {data} = await readContract(
        await get('/api/v1/episodes/ep-3-schema-migrations.json'),
        itemEnvelope(episodeSchema),
      )
      expect(data.title).toBe('פרק 3: מיגרציות, מהדורה מתוקנת')
    })
    const after = async (path: string) => (await get(path)).headers.get('etag')
    expect(await after('/api/v1/episodes/ep-3-schema-migrations.json')).not.toBe(
      before['/api/v1/episodes/ep-3-schema-migrations.json'],
    )
    expect(await after('/api/v1/all.json')).not.toBe(before['/api/v1/all.json'])
    for (const untouched of [
      '/api/v1/episodes/ep-4-supply-chain-security.json',
      '/api/v1/voices.json',
      '/api/v1/meetups.json',
    ]) {
      expect(await after(untouched), untouched).toBe(before[untouched])
    }
  })

  it('serves the same sitemaps, byte for byte, as a fresh server that read the edited content from the start', async () => {
    // Edits dated well before they are delivered: a sitemap dated by the rebuild would say "now".
    const episodeId = idOf('ep-3-schema-migrations')
    const voiceId =
      sample.find(
        (document) => document._type === 'voice' && JSON.stringify(document).includes('"current":"nir-weiss"'),
      )?._id ?? ''
    documents = documents.map((document) => {
      if (document._id === episodeId)
        return {...document, title: 'פרק 3: מיגרציות, שוב', _updatedAt: '2026-10-01T08:00:00Z'}
      if (document._id === voiceId) return {...document, name: 'ניר וייס (רדיס)', _updatedAt: '2026-10-02T09:30:00Z'}
      return document
    })
    const sitemapPaths = async (base: string) =>
      [
        ...(await (await fetch(`${base}/sitemap-index.xml`)).text()).matchAll(/<loc>[^<]*?(\/sitemaps\/[^<]+)<\/loc>/g),
      ].map((match) => match[1] ?? '')
    const before = await (await get('/sitemap-index.xml')).text()
    expect(await (await deliver({_id: episodeId, _type: 'episode'})).json()).toEqual({
      status: 'accepted',
      rebuild: 'document',
    })
    expect(await (await deliver({_id: voiceId, _type: 'voice'})).json()).toEqual({
      status: 'accepted',
      rebuild: 'document',
    })
    await eventually(async () =>
      expect(await (await get('/api/v1/voices/nir-weiss.json')).text()).toContain('ניר וייס (רדיס)'),
    )
    await eventually(async () =>
      expect(await (await get('/api/v1/episodes/ep-3-schema-migrations.json')).text()).toContain(
        'פרק 3: מיגרציות, שוב',
      ),
    )
    expect(server.store.status().lastBuild).toMatchObject({kind: 'documents', ok: true})
    expect(await (await get('/sitemap-index.xml')).text()).not.toBe(before)

    const edited = [...documents]
    const fresh = await startTestServer({source: createEmbeddedSource('the edited sample', async () => edited)})
    try {
      const paths = ['/sitemap-index.xml', ...(await sitemapPaths(server.baseUrl))]
      expect(paths).toEqual(['/sitemap-index.xml', ...(await sitemapPaths(fresh.baseUrl))])
      for (const path of paths) {
        const [webhooked, read] = await Promise.all([get(path), fetch(`${fresh.baseUrl}${path}`)])
        expect({path, body: await webhooked.text(), etag: webhooked.headers.get('etag')}).toEqual({
          path,
          body: await read.text(),
          etag: read.headers.get('etag'),
        })
      }
      expect(await (await get('/sitemaps/episodes.xml')).text()).toContain('<lastmod>2026-10-01T08:00:00Z</lastmod>')
    } finally {
      await fresh.close()
    }
  })

  it('removes a deleted episode from lists and bulk, and its endpoint answers 404', async () => {
    const deletedId = idOf('ep-5-build-times')
    documents = documents.filter((document) => document._id !== deletedId)
    expect((await deliver({_id: deletedId, _type: 'episode'})).status).toBe(202)
    await eventually(async () => {
      await readProblem(await get('/api/v1/episodes/ep-5-build-times.json'), 404)
    })
    const bulk = await readContract(await get('/api/v1/all.json'), bulkSchema)
    expect(bulk.data.episodes.map((item) => item.slug)).not.toContain('ep-5-build-times')
    expect(bulk.counts.episodes).toBe(sampleCounts.episodes - 1)
  })

  it('rebuilds a voice and the documents that show its slug, and nothing else', async () => {
    const voiceId =
      sample.find(
        (document) => document._type === 'voice' && JSON.stringify(document).includes('"current":"nir-weiss"'),
      )?._id ?? ''
    const referencing = sample.filter((document) => JSON.stringify(document).includes(`"_ref":"${voiceId}"`))
    expect(referencing.length).toBeGreaterThan(0)
    const untouched = await get('/api/v1/episodes/ep-7-hebrew-nlp.json')
    documents = documents.map((document) =>
      document._id === voiceId ? {...document, slug: {_type: 'slug', current: 'nir-weiss-redis'}} : document,
    )
    expect(await (await deliver({_id: voiceId, _type: 'voice'})).json()).toEqual({
      status: 'accepted',
      rebuild: 'document',
    })
    await eventually(async () => {
      const {data} = await readContract(
        await get('/api/v1/episodes/ep-24-redis-internals.json'),
        itemEnvelope(episodeSchema),
      )
      expect(data.guests.map((guest) => guest.slug)).toEqual(['nir-weiss-redis'])
    })
    expect((await get('/api/v1/voices/nir-weiss-redis.json')).status).toBe(200)
    expect((await get('/api/v1/voices/nir-weiss.json')).status).toBe(404)
    expect(
      (
        await get('/api/v1/episodes/ep-7-hebrew-nlp.json', {
          headers: {'if-none-match': untouched.headers.get('etag') ?? ''},
        })
      ).status,
    ).toBe(304)
    expect(server.store.status().lastBuild).toMatchObject({kind: 'documents', documents: [voiceId]})
    // Every item the voice appears in shows the new slug, as a full re-read would.
    const bulk = await (await get('/api/v1/all.json')).text()
    expect(bulk).not.toContain('"nir-weiss"')
    expect(await (await deliver({hello: 'rebuild everything'})).json()).toMatchObject({rebuild: 'full'})
    await eventually(async () => expect(builds.at(-1)).toMatchObject({kind: 'full', ok: true}))
    expect(await (await get('/api/v1/all.json')).text()).toBe(bulk)

    // Deleted: the documents that referenced it no longer link to it.
    documents = documents.filter((document) => document._id !== voiceId)
    await deliver({_id: voiceId, _type: 'voice'})
    await eventually(async () => expect((await get('/api/v1/voices/nir-weiss-redis.json')).status).toBe(404))
    expect(await (await get('/api/v1/all.json')).text()).not.toContain('nir-weiss')
  })

  it('keeps the last valid version of a document an edit breaks, reports it, and still applies other edits', async () => {
    const brokenId = idOf('ep-6-structured-content')
    const editedId = idOf('ep-7-hebrew-nlp')
    documents = documents.map((document) => {
      if (document._id === brokenId) return {...document, title: undefined}
      if (document._id === editedId) return {...document, title: 'פרק 7: עברית, שוב'}
      return document
    })
    await deliver({_id: brokenId, _type: 'episode'})
    await deliver({_id: editedId, _type: 'episode'})
    await eventually(async () => {
      const {data} = await readContract(await get('/api/v1/episodes/ep-7-hebrew-nlp.json'), itemEnvelope(episodeSchema))
      expect(data.title).toBe('פרק 7: עברית, שוב')
    })
    const {data: kept} = await readContract(
      await get('/api/v1/episodes/ep-6-structured-content.json'),
      itemEnvelope(episodeSchema),
    )
    expect(kept.title).toBe('פרק 6: תוכן מובנה ו-GROQ')
    const status = await readStatus()
    expect(status.problems).toEqual([
      {
        document_id: brokenId,
        collection: 'episodes',
        severity: 'kept',
        messages: ['title: Invalid input: expected string, received null'],
      },
    ])

    // A full re-read (a voice changed) keeps it too.
    expect(await (await deliver({hello: 'rebuild everything'})).json()).toEqual({status: 'accepted', rebuild: 'full'})
    await eventually(async () => expect(builds.at(-1)).toMatchObject({kind: 'full', ok: true}))
    const {data: stillKept} = await readContract(
      await get('/api/v1/episodes/ep-6-structured-content.json'),
      itemEnvelope(episodeSchema),
    )
    expect(stillKept.title).toBe('פרק 6: תוכן מובנה ו-GROQ')
  })

  it('never lets an edit take a slug another episode holds, and a full re-read agrees', async () => {
    const holderBefore = await (await get('/api/v1/episodes/ep-3-schema-migrations.json')).text()
    const editedId = idOf('ep-7-hebrew-nlp')
    documents = documents.map((document) =>
      document._id === editedId
        ? {...document, slug: {_type: 'slug', current: 'ep-3-schema-migrations'}, publishedAt: '2026-10-01'}
        : document,
    )
    expect((await deliver({_id: editedId, _type: 'episode'})).status).toBe(202)
    await eventually(async () => expect(builds.at(-1)).toMatchObject({kind: 'documents', ok: true}))
    const afterWebhook = {
      holder: await (await get('/api/v1/episodes/ep-3-schema-migrations.json')).text(),
      kept: (await get('/api/v1/episodes/ep-7-hebrew-nlp.json')).status,
    }
    expect(afterWebhook).toEqual({holder: holderBefore, kept: 200})
    expect((await readStatus()).problems).toEqual([
      {
        document_id: editedId,
        collection: 'episodes',
        severity: 'kept',
        messages: ['slug: "ep-3-schema-migrations" is already used by another document in episodes'],
      },
    ])

    const version = server.store.current().version
    await server.store.refresh()
    expect(server.store.current().version).toBe(version)
  })

  it('rebuilds everything when the payload does not name a document, and ignores drafts and other types', async () => {
    expect(await (await deliver({hello: 'world'})).json()).toEqual({status: 'accepted', rebuild: 'full'})
    expect(await (await deliver({_id: 'drafts.x', _type: 'episode'})).json()).toEqual({
      status: 'accepted',
      rebuild: 'none',
    })
    expect(await (await deliver({_id: 'x', _type: 'sanity.imageAsset'})).json()).toEqual({
      status: 'accepted',
      rebuild: 'none',
    })
  })
})

describe('refused deliveries change nothing', () => {
  async function expectRefused(response: Response, status: number, detail: RegExp) {
    const problem = await readProblem(response, status)
    expect(problem.detail).toMatch(detail)
    expect([401, 403]).not.toContain(response.status)
  }

  it('refuses a bad signature, a stale or future timestamp and a missing signature, and none of them builds', async () => {
    const editedId = idOf('ep-8-on-call')
    documents = documents.map((document) =>
      document._id === editedId ? {...document, title: 'לא אמור להופיע'} : document,
    )
    const payload = {_id: editedId, _type: 'episode'}

    await expectRefused(await deliver(payload, {secret: 'some-other-secret-value'}), 400, /does not sign/)
    await expectRefused(await deliver(payload, {timestamp: Date.now() - 6 * 60 * 1000}), 400, /5 minutes/)
    await expectRefused(await deliver(payload, {timestamp: Date.now() + 6 * 60 * 1000}), 400, /5 minutes/)
    const unsigned = await fetch(`${server.baseUrl}/webhooks/sanity`, {method: 'POST', body: JSON.stringify(payload)})
    await expectRefused(unsigned, 400, /header is missing/)
    await expectRefused(await deliver(payload, {idempotencyKey: 'k'.repeat(257)}), 400, /at most 256/)

    expect(await settleBuilds()).toEqual([])
    const {data} = await readContract(await get('/api/v1/episodes/ep-8-on-call.json'), itemEnvelope(episodeSchema))
    expect(data.title).not.toBe('לא אמור להופיע')
  })

  it('accepts a signed delivery once: a replay with the same key, a new key or no key is refused and builds nothing', async () => {
    const editedId = idOf('ep-8-on-call')
    const signed = await signWebhook({_id: editedId, _type: 'episode'}, SECRET)
    expect((await postWebhook(server.baseUrl, signed, 'first-key')).status).toBe(202)
    await eventually(async () => expect(builds).toHaveLength(1))
    await expectRefused(await postWebhook(server.baseUrl, signed, 'first-key'), 409, /already received/)
    await expectRefused(await postWebhook(server.baseUrl, signed, 'another-key'), 409, /already received/)
    await expectRefused(await postWebhook(server.baseUrl, signed, null), 409, /already received/)
    // A new delivery of the same change (a new signature) is a new hint, and is accepted.
    expect((await deliver({_id: editedId, _type: 'episode'}, {idempotencyKey: 'second-key'})).status).toBe(202)

    const triggered = await settleBuilds()
    expect(triggered.map((outcome) => outcome.documents)).toEqual([[editedId], [editedId]])
  })

  it('ignores document types that name prototype members, and later updates still apply', async () => {
    for (const type of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(await (await deliver({_id: `odd-${type}`, _type: type})).json()).toEqual({
        status: 'accepted',
        rebuild: 'none',
      })
    }
    expect(await settleBuilds()).toEqual([])
    expect(builds.every((outcome) => outcome.ok)).toBe(true)
  })

  it('answers other methods with 405 and Allow: POST', async () => {
    const response = await get('/webhooks/sanity')
    await readProblem(response, 405)
    expect(response.headers.get('allow')).toBe('POST')
  })

  it('refuses an oversized body with a 413 problem', async () => {
    const response = await deliver({_id: 'x', _type: 'episode', padding: 'x'.repeat(100_000)})
    await readProblem(response, 413)
  })
})

describe('failures keep the last good snapshot', () => {
  it('serves the old catalog with 200s while the source is down, reports it, and recovers by itself', async () => {
    const before = await get('/api/v1/all.json')
    const etag = before.headers.get('etag')
    failReads = true
    documents = [...documents, episode('ep-41-after-outage', {_id: 'after-outage', publishedAt: '2026-11-02'})]
    expect((await deliver({hello: 'rebuild everything'})).status).toBe(202)
    await eventually(async () => expect(server.store.status().consecutiveFailures).toBeGreaterThan(0))
    const during = await get('/api/v1/all.json')
    expect(during.status).toBe(200)
    expect(during.headers.get('etag')).toBe(etag)
    const status = await readStatus()
    expect(status).toMatchObject({status: 'degraded', last_build: {ok: false, error: 'Sanity is unreachable'}})
    expect(status.next_retry_at).toEqual(expect.any(String))

    failReads = false
    await eventually(async () => expect((await get('/api/v1/episodes/ep-41-after-outage.json')).status).toBe(200))
    expect((await readStatus()).status).toBe('ok')
  })

  it('never shows a reader a mix of two snapshots', async () => {
    const target = idOf('ep-10-modern-cpp')
    const path = 'episodes/ep-10-modern-cpp.json'
    const titles = ['גרסה א', 'גרסה ב']
    const titleIn = (body: {toString(encoding: 'utf8'): string} | undefined) => {
      const bulk = bulkSchema.parse(JSON.parse(body?.toString('utf8') ?? '{}'))
      expect(bulk.counts.episodes).toBe(bulk.data.episodes.length)
      return bulk.data.episodes.find((item) => item.slug === 'ep-10-modern-cpp')?.title
    }
    // Over HTTP: every response's ETag names exactly the bytes it came with (headers and body from
    // one snapshot): one ETag, one body, and the other way round.
    const bodyOfEtag = new Map<string, string>()
    const etagOfBody = new Map<string, string>()
    const reader = async () => {
      for (let round = 0; round < 40; round++) {
        const response = await get('/api/v1/all.json', {headers: {'Accept-Encoding': 'identity'}})
        const body = Buffer.from(await response.arrayBuffer())
        const etag = response.headers.get('etag') ?? ''
        const digest = createHash('sha256').update(body).digest('hex')
        expect(bodyOfEtag.get(etag) ?? digest).toBe(digest)
        expect(etagOfBody.get(digest) ?? etag).toBe(etag)
        bodyOfEtag.set(etag, digest)
        etagOfBody.set(digest, etag)
        titleIn(body)
      }
    }
    // In the process: each snapshot's bulk document, list page and item say the same.
    const consistent = () => {
      const snapshot = server.store.current()
      const item = itemEnvelope(episodeSchema).parse(
        JSON.parse(snapshot.representation(path)?.body.toString('utf8') ?? '{}'),
      ).data.title
      const page = listEnvelope(episodeSchema).parse(
        JSON.parse(snapshot.representation('episodes.json')?.body.toString('utf8') ?? '{}'),
      )
      expect(titleIn(snapshot.representation('all.json')?.body)).toBe(item)
      expect(page.data.find((entry) => entry.slug === 'ep-10-modern-cpp')?.title).toBe(item)
      return item
    }
    const writer = async () => {
      const seen = new Set<string>()
      for (let round = 0; round < 20; round++) {
        const title = titles[round % 2]
        documents = documents.map((document) => (document._id === target ? {...document, title} : document))
        await server.store.refresh([{documentId: target, collection: 'episodes'}])
        seen.add(consistent())
      }
      return seen
    }
    const [seen] = await Promise.all([writer(), reader(), reader()])
    expect(seen).toEqual(new Set(titles))
    expect(bodyOfEtag.size).toBeGreaterThan(1)
  })
})

describe('without a secret', () => {
  it('has no webhook route at all', async () => {
    const plain = await startTestServer()
    try {
      const response = await fetch(`${plain.baseUrl}/webhooks/sanity`, {method: 'POST', body: '{}'})
      await readProblem(response, 404)
    } finally {
      await plain.close()
    }
  })
})
