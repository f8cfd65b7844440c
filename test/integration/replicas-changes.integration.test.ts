// Integration: the change feed and live events across two server processes sharing a real Redis
// (Debian's redis-server) on loopback, both reading a local stand-in for Sanity's query API, as
// replicas behind a load balancer would. A webhook reaches one replica; the other hears of it, and
// tells its own event streams and MCP listeners.
import {catalogVersionAt} from '../../support/catalog-version.ts'
import {readFile} from 'node:fs/promises'
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {eventSchema, eventsIn, listenToEvents} from '../helpers/event-stream.ts'
import {eventually} from '../../support/eventually.ts'
import type {MainProcess} from '../helpers/main-process.ts'
import {startReplicaPair, type ReplicaPair} from '../helpers/replica-pair.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-for-replica-changes'
const SLUG = 'ep-1-why-we-started'

let documents: SanityDocument[]
let pair: ReplicaPair
let first: MainProcess
let second: MainProcess

beforeAll(async () => {
  documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  pair = await startReplicaPair(() => documents, {SANITY_WEBHOOK_SECRET: SECRET, RATE_LIMIT_QUOTA: '0'})
  ;({first, second} = pair)
}, 30_000)
afterAll(async () => {
  await pair?.stop()
})

/** Retitles the episode in the stand-in and tells `replica` by webhook; resolves with its new version once it serves it. */
async function publishOn(replica: MainProcess, title: string): Promise<string> {
  const target = documents.find(
    (document) => document._type === 'episode' && JSON.stringify(document).includes(`"current":"${SLUG}"`),
  )
  if (!target) throw new Error(`no episode ${SLUG}`)
  documents = documents.map((document) => (document === target ? {...document, title} : document))
  const delivered = await sendSignedWebhook(replica.baseUrl, SECRET, {_id: target._id, _type: 'episode'})
  expect(delivered.status).toBe(202)
  await eventually(async () => expect(await titleOn(replica)).toBe(title), 20_000)
  return versionOf(replica)
}

const titleOn = async (replica: MainProcess) =>
  z
    .object({data: z.object({title: z.string()})})
    .parse(await (await fetch(`${replica.baseUrl}/api/v1/episodes/${SLUG}.json`)).json()).data.title
const versionOf = (replica: MainProcess) => catalogVersionAt(replica.baseUrl)
const changesSince = async (replica: MainProcess, token: string) => {
  const response = await fetch(`${replica.baseUrl}/api/v1/changes.json?since=${token}`)
  const body: unknown = await response.json()
  const changes = z.object({data: z.object({changes: z.array(z.object({slug: z.string()}))})}).safeParse(body)
  return {status: response.status, slugs: changes.data?.data.changes.map((change) => change.slug)}
}

describe('the change feed and live events across replicas sharing Redis', () => {
  it('answer a token from one replica on the other, and send its publish to the streams held there', async () => {
    const token = await versionOf(first)
    const held = await listenToEvents(second.baseUrl)
    expect(held.status).toBe(200)
    const version = await publishOn(first, 'פרק 1: מהשרת הראשון')
    // The other replica hears of the webhook, serves the same bytes, and sends the event.
    await eventually(async () => expect(await titleOn(second)).toBe('פרק 1: מהשרת הראשון'), 20_000)
    await eventually(async () => expect(eventsIn(held.text()).map((event) => event.id)).toContain(version), 20_000)
    const event = eventsIn(held.text()).find((sent) => sent.id === version)
    expect(eventSchema.parse(event?.data).changes).toEqual([{type: 'episode', slug: SLUG, deleted: false}])
    held.close()
    expect(await changesSince(second, token)).toEqual({status: 200, slugs: [SLUG]})
  }, 60_000)

  it("tell an agent listening on one replica of a publish on the other (MCP's resources/updated)", async () => {
    const agent = new Client(
      {name: 'replica-listener', version: '1.0.0'},
      {versionNegotiation: {mode: {pin: '2026-07-28'}}},
    )
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${second.baseUrl}/mcp`)))
    const updated: string[] = []
    agent.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri)
    })
    const uri = `https://api.example/api/v1/episodes/${SLUG}.json`
    const subscription = await agent.listen({resourceSubscriptions: [uri]})
    await publishOn(first, 'פרק 1: לסוכנים בשרת השני')
    await eventually(async () => expect(updated).toContain(uri), 20_000)
    await subscription.close()
    await agent.close()
  }, 60_000)

  it('answer a token for a version only the other replica served (this one built two edits as one)', async () => {
    // The second replica is paused while the first serves two versions: it hears both edits at once
    // when it resumes, and reads the episode once, so it never serves the version between them.
    const twoEdits = async () => {
      const between = await publishOn(first, 'פרק 1: גרסת ביניים')
      await publishOn(first, 'פרק 1: הגרסה האחרונה')
      return between
    }
    process.kill(second.pid, 'SIGSTOP')
    const between = await twoEdits().finally(() => process.kill(second.pid, 'SIGCONT'))
    await eventually(async () => expect(await titleOn(second)).toBe('פרק 1: הגרסה האחרונה'), 20_000)
    expect(await changesSince(second, between)).toEqual({status: 200, slugs: [SLUG]})
    expect(await changesSince(second, await versionOf(second))).toEqual({status: 200, slugs: []})
  }, 60_000)
})
