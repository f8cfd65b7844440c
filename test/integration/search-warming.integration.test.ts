// Integration: a catalog too large to index within one request (here the sample with 11 MB of
// transcripts) answers its first search with a 503 problem that says when to come back, and the
// MCP tool says the same, while the index is built in the background; then both answer. The real
// app on a loopback port.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {searchEnvelope} from '../../server/api/v1/search.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {readProblem} from '../helpers/contract.ts'
import {LAST_WORD, sampleWithLongTranscripts} from '../helpers/long-transcripts.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

const TRANSCRIBED = 6
const documents = sampleWithLongTranscripts(TRANSCRIBED)

let server: TestServer
let client: Client
beforeAll(async () => {
  server = await startTestServer({source: createEmbeddedSource('sample with long transcripts', async () => documents)})
  client = new Client({name: 'warming-tests', version: '1.0.0'}, {versionNegotiation: {mode: {pin: '2026-07-28'}}})
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
})
afterAll(async () => {
  await client.close()
  expect(server.loggedErrors).toEqual([])
  await server.close()
})

const search = () => fetch(`${server.baseUrl}/api/v1/search.json?q=${encodeURIComponent(LAST_WORD)}`)

describe('a search before the index is built', () => {
  it('is told to come back, over HTTP and MCP alike, and then answered', async () => {
    // The developer portal shows no example answer here, and does not start the index for one.
    const portal = await (await fetch(`${server.baseUrl}/docs`)).text()
    expect(portal).toContain('it is indexed in the background on its first search')
    const first = await search()
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await readProblem(first, 503)).detail).toMatch(/search index is being built/)
    // Other requests are answered meanwhile: the build runs in slices between them.
    expect((await fetch(`${server.baseUrl}/api/v1/episodes.json`)).status).toBe(200)

    const tool = await client.callTool({name: 'search_catalog', arguments: {query: LAST_WORD}})
    if (tool.isError) expect(JSON.stringify(tool.content)).toMatch(/search index is being built/)

    let answer = await search()
    while (answer.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await search()
    }
    expect(answer.status).toBe(200)
    const {data} = searchEnvelope.parse(await answer.json())
    expect(data).toHaveLength(TRANSCRIBED)
    const answered = await client.callTool({name: 'search_catalog', arguments: {query: LAST_WORD}})
    expect(answered.isError).toBeFalsy()
  })
})
