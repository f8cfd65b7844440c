// Integration: the real app on a loopback port (startTestServer, over a copy of the sample dataset
// that the server watches) and the official MCP client SDK holding 2026-07-28
// `subscriptions/listen` streams: what an edit of the file delivers on them, and how many one
// address may hold (TRUST_PROXY=loopback, so X-Forwarded-For names the client).
import {copyFile, mkdtemp, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {Client, StreamableHTTPClientTransport, type McpSubscription} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {eventually} from '../../support/eventually.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let folder: string
let datasetFile: string
let server: TestServer
const clients: Client[] = []

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-mcp-listen-'))
  datasetFile = join(folder, 'catalog.ndjson')
  await copyFile(SAMPLE_DATASET, datasetFile)
  server = await startTestServer({
    environment: {DATASET_FILE: datasetFile, RECONCILE_INTERVAL_SECONDS: '0', TRUST_PROXY: 'loopback'},
  })
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await server.close()
  await rm(folder, {recursive: true, force: true})
})

async function connect(mode: 'modern' | 'legacy', forwardedFor?: string): Promise<Client> {
  const client = new Client(
    {name: 'listen-tests', version: '1.0.0'},
    {versionNegotiation: {mode: mode === 'modern' ? {pin: '2026-07-28'} : 'legacy'}},
  )
  const headers = forwardedFor ? {'X-Forwarded-For': forwardedFor} : undefined
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {requestInit: {headers}}))
  clients.push(client)
  return client
}

const uri = (path: string) => `http://api.test/api/v1/${path}`

/** Rewrites the dataset file as an editor's export does: a new file renamed over the old one. */
async function editDataset(edit: (lines: string[]) => string[]): Promise<void> {
  const lines = (await readFile(datasetFile, 'utf8')).split('\n')
  const edited = edit(lines)
  expect(edited).not.toEqual(lines)
  await writeFile(`${datasetFile}.new`, edited.join('\n'))
  await rename(`${datasetFile}.new`, datasetFile)
}

describe('capabilities', () => {
  it('advertise only what is delivered: a fixed tool list, resource changes on a 2026-07-28 listen stream', async () => {
    const modern = await connect('modern')
    expect(modern.getServerCapabilities()).toMatchObject({
      tools: {listChanged: false},
      prompts: {listChanged: false},
      resources: {listChanged: true, subscribe: true},
    })
    // A stateless server can send an `initialize`-era client nothing.
    const legacy = await connect('legacy')
    expect(legacy.getServerCapabilities()?.tools?.listChanged).toBe(false)
    expect(legacy.getServerCapabilities()?.resources?.listChanged).toBeFalsy()
    expect(legacy.getServerCapabilities()?.resources?.subscribe).toBeFalsy()
  })
})

describe('a listen stream', () => {
  it('delivers resources/updated for the items an edit changed, and list_changed when one goes', async () => {
    const client = await connect('modern')
    const updated: string[] = []
    let listChanged = 0
    client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri)
    })
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      listChanged++
    })
    const edited = uri('episodes/ep-1-why-we-started.json')
    const untouched = uri('episodes/ep-22-cache-invalidation.json')
    const removed = uri('meetups/etag-deep-dive.json')
    const subscription = await client.listen({
      resourcesListChanged: true,
      resourceSubscriptions: [edited, untouched, removed, uri('episodes.json')],
    })
    expect(subscription.honoredFilter).toMatchObject({resourcesListChanged: true})
    expect(subscription.honoredFilter.resourceSubscriptions).toContain(edited)

    await editDataset((lines) =>
      lines.map((line) =>
        line.includes('"current":"ep-1-why-we-started"') && line.includes('"_type":"episode"')
          ? JSON.stringify({...JSON.parse(line), title: 'פרק 1: למה התחלנו, כפי שנערך'})
          : line,
      ),
    )
    await eventually(async () => expect(updated).toContain(edited))
    // The list's first page shows the title, so it changed too; nothing came or went.
    expect(updated.sort()).toEqual([edited, uri('episodes.json')].sort())
    expect(listChanged).toBe(0)

    updated.length = 0
    await editDataset((lines) => lines.filter((line) => !line.includes('"current":"etag-deep-dive"')))
    await eventually(async () => expect(listChanged).toBe(1))
    expect(updated).toEqual([removed])
    await subscription.close()
  })

  it('is refused to one address past its share while another address still gets one', async () => {
    const greedy = await connect('modern', '203.0.113.7')
    const share = 1024 / 16
    const held: McpSubscription[] = []
    for (let index = 0; index < share; index++) held.push(await greedy.listen({resourcesListChanged: true}))
    await expect(greedy.listen({resourcesListChanged: true})).rejects.toThrow(/Subscription limit reached/)

    const other = await connect('modern', '198.51.100.2')
    const theirs = await other.listen({resourcesListChanged: true})
    expect(theirs.honoredFilter).toEqual({resourcesListChanged: true})

    // A stream closed gives its place back.
    await held.pop()?.close()
    await eventually(async () => {
      held.push(await greedy.listen({resourcesListChanged: true}))
    })
    await Promise.all([...held, theirs].map((subscription) => subscription.close()))
  })
})
