// Integration: two server processes sharing a real Redis (Debian's redis-server) on loopback, both
// reading a local stand-in for Sanity's query API, as replicas behind a load balancer would.
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {readContract} from '../helpers/contract.ts'
import {eventually} from '../../support/eventually.ts'
import type {MainProcess} from '../helpers/main-process.ts'
import {startReplicaPair, type ReplicaPair} from '../helpers/replica-pair.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-for-replicas'
const QUOTA = 20
const EPISODE_PATH = '/api/v1/episodes/ep-1-why-we-started.json'

let documents: SanityDocument[]
let pair: ReplicaPair
let replicas: MainProcess[]

beforeAll(async () => {
  documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  pair = await startReplicaPair(() => documents, {
    SANITY_WEBHOOK_SECRET: SECRET,
    RATE_LIMIT_QUOTA: String(QUOTA),
    TRUST_PROXY: 'loopback', // the test plays the CDN, naming clients in X-Forwarded-For
  })
  replicas = [pair.first, pair.second]
}, 30_000)
afterAll(async () => {
  await pair?.stop()
})

const get = (replica: MainProcess | undefined, path: string, client = '198.51.100.1') =>
  fetch(`${replica?.baseUrl}${path}`, {headers: {'X-Forwarded-For': client}})

async function deliver(replica: MainProcess | undefined, payload: {_id: string; _type: string}) {
  return sendSignedWebhook(replica?.baseUrl ?? '', SECRET, payload)
}

function retitle(slug: string, title: string): string {
  const target = documents.find(
    (document) => document._type === 'episode' && JSON.stringify(document).includes(`"current":"${slug}"`),
  )
  if (!target) throw new Error(`no episode ${slug}`)
  documents = documents.map((document) => (document === target ? {...document, title} : document))
  return target._id
}

const titleOn = async (replica: MainProcess | undefined) =>
  (await readContract(await get(replica, EPISODE_PATH), itemEnvelope(episodeSchema))).data.title

describe('two replicas sharing Redis', () => {
  it('serve the same bytes under the same ETags', async () => {
    for (const path of ['/api/v1/index.json', '/api/v1/all.json', EPISODE_PATH, '/api/v1/episodes.json?limit=5']) {
      const [first, second] = await Promise.all(replicas.map((replica) => get(replica, path)))
      expect(first?.status).toBe(200)
      expect(second?.headers.get('etag')).toBe(first?.headers.get('etag'))
      expect(await second?.text()).toBe(await first?.text())
    }
  })

  it('enforce one quota per client: a burst split across both is cut at the quota', async () => {
    const client = '203.0.113.9'
    const responses: Response[] = []
    for (let index = 0; index < QUOTA + 10; index++)
      responses.push(await get(replicas[index % 2], '/api/v1/index.json', client))
    const statuses = responses.map((response) => response.status)
    expect(statuses.slice(0, QUOTA)).toEqual(Array(QUOTA).fill(200))
    expect(statuses.slice(QUOTA)).toEqual(Array(10).fill(429))
    // The remaining count goes down by one per request whichever replica answers.
    const remaining = responses
      .slice(0, QUOTA)
      .map((response) => /;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1])
    expect(remaining).toEqual(Array.from({length: QUOTA}, (_, index) => String(QUOTA - 1 - index)))
    const refused = responses.at(-1)
    expect(refused?.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another client still has its whole quota, on either replica.
    expect((await get(replicas[1], '/api/v1/index.json', '203.0.113.10')).status).toBe(200)
  })

  it('rebuild everywhere from one webhook delivered to one replica, and agree on the new ETag', async () => {
    const before = (await get(replicas[1], EPISODE_PATH)).headers.get('etag')
    const id = retitle('ep-1-why-we-started', 'פרק 1: כותרת שנערכה בסטודיו')
    expect((await deliver(replicas[0], {_id: id, _type: 'episode'})).status).toBe(202)
    await eventually(async () => {
      expect(await titleOn(replicas[1])).toBe('פרק 1: כותרת שנערכה בסטודיו')
      expect(await titleOn(replicas[0])).toBe('פרק 1: כותרת שנערכה בסטודיו')
    }, 5000)
    const [first, second] = await Promise.all(replicas.map((replica) => get(replica, EPISODE_PATH)))
    expect(first?.headers.get('etag')).not.toBe(before)
    expect(second?.headers.get('etag')).toBe(first?.headers.get('etag'))
    expect(replicas[1]?.output()).toContain('another replica received a webhook; rebuilding')
  })

  it('keep serving through a Redis outage, then catch up on the change they missed', async () => {
    await pair.redis.stop()
    await eventually(async () => expect(replicas[0]?.output()).toContain('Redis commands connection lost'), 5000)
    // Each replica counts in its own process meanwhile: past the shared quota, spread over two, still 200.
    for (let index = 0; index < QUOTA + 5; index++)
      expect((await get(replicas[index % 2], '/api/v1/index.json', '203.0.113.50')).status).toBe(200)

    // A delivery during the outage rebuilds the replica that got it; the other cannot hear of it.
    const id = retitle('ep-1-why-we-started', 'פרק 1: נערך בזמן התקלה')
    expect((await deliver(replicas[0], {_id: id, _type: 'episode'})).status).toBe(202)
    await eventually(async () => expect(await titleOn(replicas[0])).toBe('פרק 1: נערך בזמן התקלה'), 5000)
    expect(await titleOn(replicas[1])).toBe('פרק 1: כותרת שנערכה בסטודיו')

    // When Redis is back, each replica re-reads the catalog: the missed change arrives.
    await pair.redis.restart()
    await eventually(async () => expect(await titleOn(replicas[1])).toBe('פרק 1: נערך בזמן התקלה'), 15_000)
    expect(replicas[1]?.output()).toContain('Redis subscription restored')
  }, 30_000)
})
