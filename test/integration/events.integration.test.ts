// Integration: GET /api/v1/events over real HTTP, from the composition npm start runs, over a copy
// of the dataset file it watches: an event per served version (its id the Catalog-Version), resume
// with Last-Event-ID (collapsed, or a reset), the per-client share and the global bound (X-Forwarded-For
// from a trusted loopback proxy names the clients) and a heartbeat. A stalled reader and close()
// are in test/http/event-streams.test.ts, without sockets.
import {catalogVersionAt} from '../../support/catalog-version.ts'
import {rm} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {copySampleDataset, retitleEpisode} from '../helpers/dataset-file.ts'
import {eventSchema, eventsIn, listenToEvents, type EventListener} from '../helpers/event-stream.ts'
import {eventually} from '../../support/eventually.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {originHealthyBehind, startVarnish} from '../../support/varnish.ts'

const MAX_STREAMS = 32
let directory: string
let datasetFile: string
let origin: TestServer

beforeAll(async () => {
  ;({directory, datasetFile} = await copySampleDataset('catalog-events-'))
  origin = await startTestServer({
    environment: {
      DATASET_FILE: datasetFile,
      EVENT_STREAMS_MAX: String(MAX_STREAMS),
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_QUOTA: '0',
    },
    eventStreams: {heartbeatMs: 200},
  })
}, 60_000)
afterAll(async () => {
  await origin?.close()
  await rm(directory, {recursive: true, force: true})
})

const listen = (headers: Record<string, string> = {}, base = origin.baseUrl) => listenToEvents(base, headers)

const version = () => catalogVersionAt(origin.baseUrl)

describe('GET /api/v1/events', () => {
  it('sends one event per served version, and a resumed client what it missed, collapsed', async () => {
    const before = await version()
    const live = await listen()
    expect(live.status).toBe(200)
    // The version served as an id with no data: an EventSource that drops before the first change
    // still has a Last-Event-ID to resume from.
    await eventually(async () => expect(live.text().startsWith(`retry: 3000\nid: ${before}\n\n`)).toBe(true), 20_000)
    await retitleEpisode(datasetFile, 'ep-3-schema-migrations', 'פרק 3: אירוע חי')
    await eventually(async () => expect(eventsIn(live.text())).toHaveLength(1), 20_000)
    const [event] = eventsIn(live.text())
    const after = await version()
    expect(event?.id).toBe(after)
    expect(eventSchema.parse(event?.data)).toEqual({
      version: after,
      changes: [{type: 'episode', slug: 'ep-3-schema-migrations', deleted: false}],
    })
    live.close()

    await retitleEpisode(datasetFile, 'ep-2-react-server-components', 'פרק 2: שוב')
    await eventually(async () => expect(await version()).not.toBe(after), 20_000)
    const resumed = await listen({'last-event-id': before})
    await eventually(async () => expect(eventsIn(resumed.text())).toHaveLength(1), 20_000)
    const missed = eventSchema.parse(eventsIn(resumed.text())[0]?.data)
    expect(missed.changes.map((change) => change.slug).sort()).toEqual([
      'ep-2-react-server-components',
      'ep-3-schema-migrations',
    ])
    resumed.close()

    const unknown = await listen({'last-event-id': 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'})
    await eventually(async () => expect(eventsIn(unknown.text())[0]?.event).toBe('reset'), 20_000)
    unknown.close()
  })

  it('gives one address its share and no more, refuses past the global bound, and keeps a heartbeat', async () => {
    const share = MAX_STREAMS / 16
    const held: EventListener[] = []
    // Ten addresses each open streams until refused; an eleventh still gets one.
    for (let client = 1; client <= 10; client++) {
      for (let index = 0; index < share; index++) held.push(await listen({'x-forwarded-for': `203.0.113.${client}`}))
      expect((await listen({'x-forwarded-for': `203.0.113.${client}`})).status).toBe(429)
    }
    expect(held.map((each) => each.status)).toEqual(Array.from({length: 10 * share}, () => 200))
    for (let client = 11; held.length < MAX_STREAMS; client++)
      for (let index = 0; index < share && held.length < MAX_STREAMS; index++)
        held.push(await listen({'x-forwarded-for': `203.0.113.${client}`}))
    const full = await listen({'x-forwarded-for': '203.0.113.99'})
    expect(full.status).toBe(503)
    await eventually(async () => expect(held[0]?.text()).toContain(': heartbeat'), 10_000)
    for (const each of held) each.close()
    await eventually(async () => expect((await listen({'x-forwarded-for': '203.0.113.99'})).status).toBe(200), 10_000)
  })

  it('is served under the sandbox too, as every API path is (HEAD: its headers, no stream)', async () => {
    const response = await fetch(`${origin.baseUrl}/api/v1/sandbox/events`, {method: 'HEAD'})
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  })

  it('reaches a client through Varnish with the generated VCL, neither cached nor buffered', async () => {
    const varnish = await startVarnish({
      backends: [`127.0.0.1:${new URL(origin.baseUrl).port}`],
      token: 'purge-token-for-the-events',
    })
    try {
      await originHealthyBehind(varnish)
      const edge = await listen({}, varnish.url)
      expect(edge.status).toBe(200)
      await retitleEpisode(datasetFile, 'ep-4-supply-chain-security', 'פרק 4: דרך Varnish')
      await eventually(async () => expect(eventsIn(edge.text())).toHaveLength(1), 20_000)
      expect(eventsIn(edge.text())[0]?.id).toBe(await version())
      edge.close()
    } finally {
      await varnish.stop()
    }
  })
})
