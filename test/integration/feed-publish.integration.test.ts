// Integration: an editor's publish reaches the feed. The Content Lake stand-in's dataset takes the
// Studio's Actions (a draft edited, then published), sends the webhook delivery Sanity would send,
// signed, and the server, reading through @sanity/client from a query stand-in over the same
// dataset, serves the new feed, from the one-document build the webhook started. How soon is measured
// by `npm run bench:edge` (webhook to fresh at the edge), not asserted on a shared machine.
import {readFile} from 'node:fs/promises'
import {parseFeed} from 'podcast-partytime'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../server/config.ts'
import {createSource} from '../../server/content/create-source.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {createLakeDataset, type LakeDataset} from '../../support/content-lake-dataset.ts'
import {createWebhookSender, type Delivery} from '../../support/content-lake-webhook.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const SECRET = 'a-webhook-secret-of-some-length'
let lake: LakeDataset
let queryApi: Awaited<ReturnType<typeof startSanityStandIn>>
let server: TestServer
let deliveries: Delivery[]

beforeAll(async () => {
  lake = createLakeDataset(parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET), {identity: 'editor'})
  queryApi = await startSanityStandIn(() => lake.all(), {dataset: 'production'})
  const environment = {
    SANITY_PROJECT_ID: 'embedded',
    SANITY_DATASET: 'production',
    SANITY_API_HOST: queryApi.apiHost,
    SANITY_WEBHOOK_SECRET: SECRET,
    RECONCILE_INTERVAL_SECONDS: '0',
  }
  server = await startTestServer({
    environment,
    source: createSource(loadConfig({PUBLIC_BASE_URL: 'http://api.test', ...environment}).content),
  })
  const sender = createWebhookSender(
    {
      url: `${server.baseUrl}/webhooks/sanity`,
      secret: SECRET,
      filter: '_type in ["episode", "meetup", "voice", "podcastSettings"]',
      projection: '{_id, _type}',
    },
    {projectId: 'embedded', dataset: 'production'},
  )
  deliveries = sender.deliveries
  lake.subscribe((committed) => sender.send(committed))
})
afterAll(async () => {
  await server.close()
  await queryApi.close()
})

const feed = async () => parseFeed(await (await fetch(`${server.baseUrl}/feed.xml`)).text())

/** Edits a draft of `id` and publishes it, as the Studio does; resolves when the publish's delivery was accepted. */
async function publish(id: string, set: Record<string, unknown>): Promise<void> {
  lake.actions(`edit-${id}-${Date.now()}`, [
    {actionType: 'sanity.action.document.edit', draftId: `drafts.${id}`, publishedId: id, patch: {set}},
  ])
  lake.actions(`publish-${id}-${Date.now()}`, [
    {actionType: 'sanity.action.document.publish', draftId: `drafts.${id}`, publishedId: id},
  ])
  await expect
    .poll(() => deliveries.findLast((delivery) => delivery.documentId === id)?.status, {timeout: 5_000, interval: 5})
    .toBe(202)
}

describe('a publish in the Studio', () => {
  it("reaches the feed through the one-document build its webhook starts, keeping the episode's guid", async () => {
    const before = await feed()
    const item = before?.items.at(-1)
    if (!item) throw new Error('the feed has no items')
    const title = 'פרק מחודש: כותרת שפורסמה עכשיו'
    await publish(item.guid, {title, publishedAt: '2026-10-03'})
    await expect.poll(async () => (await feed())?.items[0]?.title, {interval: 10}).toBe(title)
    expect(server.store.status()).toMatchObject({
      lastBuild: {kind: 'documents', ok: true, documents: [item.guid]},
      consecutiveFailures: 0,
    })
    const after = await feed()
    expect(after?.items[0]?.guid).toBe(item.guid)
    expect(after?.items.length).toBe(before?.items.length)
  })

  it('of the podcast settings changes the channel', async () => {
    await publish('podcastSettings', {title: 'קוד טוקס: מהדורה חדשה'})
    await expect.poll(async () => (await feed())?.title, {interval: 10}).toBe('קוד טוקס: מהדורה חדשה')
  })
})
