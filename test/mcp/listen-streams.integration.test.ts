// Integration: the MCP routes with their listen streams (server/mcp/listen-streams.ts) on a real
// loopback socket, over a snapshot of the sample dataset, and the official client SDK: a client
// that stops reading is dropped past a bounded queue while another keeps its stream, and the
// global bound holds with small limits. Events are published on the streams' bus directly, as
// many as it takes to fill the sockets' buffers.
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {setImmediate as nextTurn} from 'node:timers/promises'
import {Client, StreamableHTTPClientTransport, type FetchLike} from '@modelcontextprotocol/client'
import express from 'express'
import {pino} from 'pino'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {createListenStreams, type ListenLimits, type ListenStreams} from '../../server/mcp/listen-streams.ts'
import {mcpRoutes} from '../../server/mcp/http.ts'
import {MCP_INSTRUCTIONS, MCP_SERVER_NAME} from '../../server/mcp/mcp-server.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {SERVER_VERSION} from '../../server/version.ts'
import {eventually} from '../../support/eventually.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

let snapshot: Snapshot
const servers: Server[] = []
const clients: Client[] = []

beforeAll(async () => {
  snapshot = buildSnapshot(await catalogOf(sampleDocuments), snapshotSettings({}), undefined, new Date('2026-01-01'))
})
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})
afterAll(async () => {
  for (const server of servers) server.closeAllConnections()
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
})

async function serve(limits?: ListenLimits): Promise<{url: URL; listen: ListenStreams; warnings: string[]}> {
  const warnings: string[] = []
  const logger = pino({level: 'warn'}, {write: (line: string) => void warnings.push(line)})
  const listen = createListenStreams({publicBaseUrl: 'http://api.test', logger, ...(limits ? {limits} : {})})
  const app = express()
  app.use(
    mcpRoutes({
      store: {current: () => snapshot},
      listen,
      trustProxy: ['loopback'],
      loopbackOnly: false,
      publicBaseUrl: 'http://api.test',
      name: MCP_SERVER_NAME,
      version: SERVER_VERSION,
      instructions: MCP_INSTRUCTIONS,
    }),
  )
  const server = createServer(app)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {url: new URL(`http://127.0.0.1:${port}/mcp`), listen, warnings}
}

async function connect(url: URL, options: {forwardedFor?: string; fetch?: FetchLike} = {}): Promise<Client> {
  const client = new Client(
    {name: 'listen-streams-test', version: '1.0.0'},
    {versionNegotiation: {mode: {pin: '2026-07-28'}}},
  )
  const headers = options.forwardedFor ? {'X-Forwarded-For': options.forwardedFor} : undefined
  await client.connect(new StreamableHTTPClientTransport(url, {requestInit: {headers}, fetch: options.fetch}))
  clients.push(client)
  return client
}

/** Reads a listen stream's first chunk (the acknowledgement) and never reads again, as a stuck client would. */
const stopsReadingAfterTheAck: FetchLike = async (input, init) => {
  const response = await fetch(input, init)
  if (typeof init?.body !== 'string' || !init.body.includes('subscriptions/listen') || !response.body) return response
  const first = await response.body.getReader().read()
  const stuck = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.value) controller.enqueue(first.value)
    },
  })
  return new Response(stuck, {status: response.status, headers: response.headers})
}

describe('listen streams', () => {
  it('drop a client that stops reading once its queue is full, and keep delivering to the others', async () => {
    const {url, listen, warnings} = await serve()
    const followed = 'http://api.test/api/v1/episodes/ep-1-why-we-started.json'
    const stuck = await connect(url, {fetch: stopsReadingAfterTheAck})
    await stuck.listen({resourceSubscriptions: [followed]})
    const reader = await connect(url)
    let listChanged = 0
    reader.setNotificationHandler('notifications/resources/list_changed', () => {
      listChanged++
    })
    await reader.listen({resourcesListChanged: true})
    expect(listen.openCount).toBe(2)

    // 16 KB events for the stuck stream alone, until the loopback sockets' buffers are full
    // (a few MB) and 256 more wait; 5,000 (80 MB) is only a bound on the loop.
    const padding = 'x'.repeat(16 * 1024)
    for (let sent = 0; sent < 5_000 && listen.openCount === 2; sent += 20) {
      for (let index = 0; index < 20; index++)
        listen.bus.publish({kind: 'resource_updated', uri: followed, params: {padding}})
      await nextTurn()
    }
    expect(listen.openCount).toBe(1)
    expect(warnings.join('')).toContain('dropped a listen stream whose client stopped reading (256 events waiting)')

    listen.bus.publish({kind: 'resources_list_changed'})
    await eventually(async () => expect(listChanged).toBe(1))
  })

  it('hold the global bound and the per-client share, each refused with the protocol error', async () => {
    const {url, listen} = await serve({maxStreams: 3, maxStreamsPerClient: 2, maxQueuedEvents: 256})
    const first = await connect(url, {forwardedFor: '203.0.113.1'})
    await first.listen({resourcesListChanged: true})
    await first.listen({resourcesListChanged: true})
    await expect(first.listen({resourcesListChanged: true})).rejects.toThrow(
      /Subscription limit reached: your address holds 2 listen streams/,
    )
    const second = await connect(url, {forwardedFor: '203.0.113.2'})
    await second.listen({resourcesListChanged: true})
    const third = await connect(url, {forwardedFor: '203.0.113.3'})
    await expect(third.listen({resourcesListChanged: true})).rejects.toThrow(
      /Subscription limit reached: 3 listen streams are open on this server/,
    )
    expect(listen.openCount).toBe(3)
  })
})
