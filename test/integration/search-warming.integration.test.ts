// Integration: a catalog too large to index within one request (here the sample with 11 MB of
// transcripts) answers its first search with a 503 problem that says when to come back, and the
// MCP tool says the same, while the index is built in the background; then both answer. The real
// app on a loopback port.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {searchEnvelope} from '../../server/api/v1/search.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {readProblem} from '../helpers/contract.ts'
import {sampleDocuments as sample} from '../helpers/sample.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

const TRANSCRIBED = 6
const CUES = 1000
// About 1.9 MB a transcript: long words, and the word sought said once, at the end.
const transcript = Array.from({length: CUES}, (_, index) => ({
  _key: `c${index}`,
  _type: 'transcriptCue',
  start: index * 2,
  end: index * 2 + 1.5,
  speakerName: 'דוברת',
  text:
    index === CUES - 1 ? 'זנבנב' : Array.from({length: 10}, (_, word) => `${'א'.repeat(90)}${String(word)}`).join(' '),
}))
const transcribed = new Set(
  sample
    .filter((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
    .slice(0, TRANSCRIBED)
    .map((document) => document._id),
)
const documents = sample.map((document) =>
  transcribed.has(document._id) ? {...document, transcript, duration: 10_000} : document,
)

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

const search = () => fetch(`${server.baseUrl}/api/v1/search.json?q=${encodeURIComponent('זנבנב')}`)

describe('a search before the index is built', () => {
  it('is told to come back, over HTTP and MCP alike, and then answered', async () => {
    const first = await search()
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect((await readProblem(first, 503)).detail).toMatch(/search index is being built/)
    // Other requests are answered meanwhile: the build runs in slices between them.
    expect((await fetch(`${server.baseUrl}/api/v1/episodes.json`)).status).toBe(200)

    const tool = await client.callTool({name: 'search_catalog', arguments: {query: 'זנבנב'}})
    if (tool.isError) expect(JSON.stringify(tool.content)).toMatch(/search index is being built/)

    let answer = await search()
    while (answer.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      answer = await search()
    }
    expect(answer.status).toBe(200)
    const {data} = searchEnvelope.parse(await answer.json())
    expect(data).toHaveLength(TRANSCRIBED)
    const answered = await client.callTool({name: 'search_catalog', arguments: {query: 'זנבנב'}})
    expect(answered.isError).toBeFalsy()
  })
})
