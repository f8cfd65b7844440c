// Integration: the real app on a loopback port; the official MCP client SDK talks to POST /mcp
// over Streamable HTTP, once in each protocol era (the 2026-07-28 stateless protocol, and the
// older `initialize` handshake).
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, voiceSchema} from '../../catalog/v1/contract.ts'

const episodeSummary = z
  .object({
    slug: z.string(),
    title: z.string(),
    published_date: z.string(),
    episode_number: z.number().nullable(),
    tags: z.array(z.string()),
    guests: z.array(z.string()),
    url: z.string(),
  })
  .strict()
import {growDataset} from '../../support/grow-dataset.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {catalogResources} from '../../server/mcp/resources.ts'
import {catalogTools} from '../../server/mcp/tools.ts'
import {catalogPrompts} from '../../server/mcp/prompts.ts'
import {CACHE_CONTROL} from '../../server/http/representation-response.ts'
import {RESOURCES_PER_PAGE} from '../../server/mcp/resource-list.ts'
import {sampleDocuments} from '../helpers/sample.ts'
import {readProblem} from '../helpers/contract.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
const clients: Client[] = []

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await server.close()
})

const eras = {
  '2026-07-28': {mode: {pin: '2026-07-28'}},
  'initialize handshake': {mode: 'legacy'},
} as const

async function connect(era: keyof typeof eras): Promise<Client> {
  const client = new Client({name: 'catalog-tests', version: '1.0.0'}, {versionNegotiation: eras[era]})
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
  clients.push(client)
  return client
}

const textOf = (result: {content?: unknown}) =>
  z.array(z.object({type: z.literal('text'), text: z.string()})).parse(result.content)[0]?.text ?? ''

describe.each(Object.keys(eras) as (keyof typeof eras)[])('MCP in the %s era', (era) => {
  let client: Client
  beforeAll(async () => {
    client = await connect(era)
  })

  it('negotiates the era it was asked for', () => {
    expect(client.getProtocolEra()).toBe(era === '2026-07-28' ? 'modern' : 'legacy')
    expect(client.getServerVersion()?.name).toBe('podcast-catalog')
  })

  it('lists the registered tools, all read-only, with input schemas and output schemas for lists and search', async () => {
    const {tools} = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(catalogTools.map((tool) => tool.name).sort())
    for (const tool of tools) {
      expect(tool.annotations).toMatchObject({readOnlyHint: true, destructiveHint: false})
      expect(tool.inputSchema.type).toBe('object')
      // get_ tools return the API's own record, described by the OpenAPI document.
      if (!tool.name.startsWith('get_')) expect(tool.outputSchema?.type, tool.name).toBe('object')
    }
    // No meaningless integer bounds (zod's ±2^53) in what a model reads.
    expect(JSON.stringify(tools)).not.toContain('9007199254740991')
    expect(tools.find((tool) => tool.name === 'list_voices')?.inputSchema.properties).not.toHaveProperty('speaker')
  })

  it('gets an episode as structured content that passes the contract', async () => {
    const result = await client.callTool({name: 'get_episode', arguments: {slug: 'ep-22-cache-invalidation'}})
    expect(result.isError).toBeFalsy()
    const episode = episodeSchema.parse(result.structuredContent)
    expect(episode.title).toContain('קאש')
    // Its chapters, as the API serves them, in seconds, with the chapters document's URL.
    expect(episode.chapters?.[0]).toEqual({start_seconds: 0, title: 'פתיחה', url: null, image_url: null})
    expect(episode.chapters?.length).toBe(5)
    expect(episode.chapters_url).toBe('http://api.test/api/v1/episodes/ep-22-cache-invalidation/chapters.json')
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent)
    const api = await (await fetch(`${server.baseUrl}/api/v1/episodes/ep-22-cache-invalidation.json`)).json()
    expect({data: episode}).toEqual(api)
  })

  it('pages through episodes filtered by speaker, and by tag', async () => {
    const first = await client.callTool({name: 'list_episodes', arguments: {speaker: 'noa-levi', limit: 1}})
    const page = z
      .object({items: z.array(episodeSummary), total: z.number(), next_cursor: z.string().nullable()})
      .parse(first.structuredContent)
    expect(page.total).toBe(2)
    expect(page.items[0]?.guests).toContain('noa-levi')
    const second = await client.callTool({
      name: 'list_episodes',
      arguments: {speaker: 'noa-levi', limit: 1, cursor: page.next_cursor},
    })
    const rest = z
      .object({items: z.array(episodeSummary), next_cursor: z.string().nullable()})
      .parse(second.structuredContent)
    expect(rest.items.map((item) => item.slug)).not.toEqual(page.items.map((item) => item.slug))
    expect(rest.next_cursor).toBeNull()

    const tagged = await client.callTool({name: 'list_episodes', arguments: {tag: 'security', limit: 100}})
    const security = z.object({items: z.array(episodeSummary)}).parse(tagged.structuredContent)
    expect(security.items.length).toBeGreaterThanOrEqual(2)
    for (const episode of security.items) expect(episode.tags).toContain('security')
    // Tags as people write them: spaces and capitals mean the dashed lowercase tag.
    const spoken = await client.callTool({name: 'list_episodes', arguments: {tag: 'Machine Learning', limit: 100}})
    const learning = z.object({items: z.array(episodeSummary)}).parse(spoken.structuredContent)
    expect(learning.items.length).toBeGreaterThan(0)
    for (const episode of learning.items) expect(episode.tags).toContain('machine-learning')
  })

  it('lists the tags the filters take, with counts from the catalog', async () => {
    const result = await client.callTool({name: 'list_tags', arguments: {}})
    const {tags} = z
      .object({
        tags: z.array(z.object({tag: z.string(), episodes: z.number(), meetups: z.number(), voices: z.number()})),
      })
      .parse(result.structuredContent)
    const security = tags.find((entry) => entry.tag === 'security')
    const listed = z
      .object({total: z.number()})
      .parse((await client.callTool({name: 'list_episodes', arguments: {tag: 'security'}})).structuredContent)
    expect(security?.episodes).toBe(listed.total)
    const totals = tags.map((entry) => entry.episodes + entry.meetups + entry.voices)
    expect(totals).toEqual([...totals].sort((a, b) => b - a))
  })

  it('gets a speaker with the episodes and talks they appear in', async () => {
    const result = await client.callTool({name: 'get_voice', arguments: {slug: 'jenny-katz'}})
    const voice = voiceSchema
      .extend({appearances: z.array(z.object({collection: z.string(), slug: z.string()}).loose())})
      .parse(result.structuredContent)
    expect(voice.appearances.map((appearance) => appearance.slug).sort()).toEqual([
      'ep-30-headless-cms-migration',
      'ep-6-structured-content',
      'groq-beyond-basics',
    ])
  })

  it('answers an unknown slug with an error a model can act on', async () => {
    const result = await client.callTool({name: 'get_episode', arguments: {slug: 'ep-22-cache'}})
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(
      /No item in episodes has the slug "ep-22-cache"\. The closest slugs are "ep-22-cache-invalidation"/,
    )
  })

  it('refuses out-of-range arguments', async () => {
    const outcome = await client.callTool({name: 'list_episodes', arguments: {limit: 1000}}).then(
      (result) => (result.isError ? textOf(result) : 'accepted'),
      (error: unknown) => String(error),
    )
    expect(outcome).toMatch(/limit|100/)
  })

  it('reads the API documents as resources, byte for byte', async () => {
    const {resources} = await client.listResources()
    const fixed = catalogResources('http://api.test').filter((resource) => !resource.template)
    expect(resources.filter((resource) => fixed.some((candidate) => candidate.uri === resource.uri)).length).toBe(
      fixed.length,
    )
    const {resourceTemplates} = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual(
      [
        ...['episodes', 'meetups', 'voices'].map((name) => `http://api.test/api/v1/${name}/{slug}.json`),
        '{+origin}/api/v1/{+document}',
      ].sort(),
    )
    const read = await client.readResource({uri: 'http://api.test/api/v1/voices/noa-levi.json'})
    const served = await (await fetch(`${server.baseUrl}/api/v1/voices/noa-levi.json`)).text()
    expect(read.contents[0]).toMatchObject({
      uri: 'http://api.test/api/v1/voices/noa-levi.json',
      mimeType: 'application/json',
      text: served,
    })
    await expect(client.readResource({uri: 'http://api.test/api/v1/voices/nobody.json'})).rejects.toThrow()
    // Whatever host the client names, the path decides.
    const elsewhere = await client.readResource({uri: 'http://localhost:3000/api/v1/voices/noa-levi.json'})
    expect(elsewhere.contents[0]).toMatchObject({text: served})
  })

  it('completes slugs in resource templates', async () => {
    const {completion} = await client.complete({
      ref: {type: 'ref/resource', uri: 'http://api.test/api/v1/episodes/{slug}.json'},
      argument: {name: 'slug', value: 'ep-1'},
    })
    expect(completion.values.length).toBeGreaterThan(1)
    for (const value of completion.values) expect(value.startsWith('ep-1')).toBe(true)
  })
})

describe('search_catalog', () => {
  let client: Client
  beforeAll(async () => {
    client = await connect('2026-07-28')
  })
  const search = async (query: string, extra: Record<string, unknown> = {}) => {
    const result = await client.callTool({name: 'search_catalog', arguments: {query, ...extra}})
    return z
      .object({
        results: z.array(
          z.looseObject({collection: z.string(), slug: z.string(), score: z.number(), snippet: z.string()}),
        ),
        total: z.number(),
      })
      .parse(result.structuredContent)
  }

  it('answers questions as people ask them, loanwords included, highest score first with a snippet', async () => {
    const react = await search('איזה פרק מדבר על ריאקט?')
    expect(react.results[0]?.slug).toBe('ep-2-react-server-components')
    const scores = react.results.map((hit) => hit.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
    const rollback = await search('איך עושים רולבק לדיפלוי?')
    expect(rollback.results[0]?.slug).toBe('ep-19-reversible-deploys')
    expect(rollback.results[0]?.snippet).toContain('פריסות')
    // Function words alone find nothing, instead of everything.
    expect((await search('איזה פרק על מה')).total).toBe(0)
  })

  it('tolerates a typo, in English and in Hebrew', async () => {
    expect((await search('kuberntes', {collections: ['episodes']})).results[0]?.slug).toBe('ep-19-reversible-deploys')
    expect((await search('מיגרציוט')).results[0]?.slug).toBe('ep-3-schema-migrations')
  })

  it('finds Hebrew words behind prefixes, and ranks the title match first', async () => {
    const {results} = await search('וקוראי מסך')
    expect(results[0]?.slug).toBe('ep-11-rtl-interfaces')
  })

  it('folds niqqud and final letters', async () => {
    const plain = await search('מיגרציות')
    const pointed = await search('מִיגְרַצְיוֹת')
    expect(pointed.results.map((hit) => hit.slug)).toEqual(plain.results.map((hit) => hit.slug))
    expect(plain.results[0]?.slug).toBe('ep-3-schema-migrations')
    const finals = await search('עברית בעברית')
    expect(finals.total).toBeGreaterThan(0)
  })

  it("reads an episode's transcript a page at a time, from where a search hit's cue starts", async () => {
    const said = await search('דוגם חמישה מפתחות', {collections: ['episodes']})
    const hit = z
      .object({slug: z.string(), cue: z.object({start_seconds: z.number(), text: z.string()})})
      .parse(said.results[0])
    expect(hit.slug).toBe('ep-24-redis-internals')
    const page = z.object({
      version: z.string(),
      segments: z.array(z.object({speaker: z.string().optional(), startTime: z.number(), body: z.string()})),
      total: z.number(),
      next_cursor: z.string().nullable(),
    })
    const call = async (args: Record<string, unknown>) =>
      page.parse(
        (await client.callTool({name: 'get_transcript', arguments: {slug: hit.slug, ...args}})).structuredContent,
      )
    const first = await call({from_seconds: hit.cue.start_seconds, limit: 2})
    expect(first.segments[0]).toMatchObject({speaker: 'ניר וייס', startTime: hit.cue.start_seconds})
    expect(first.segments[0]?.body).toContain('דוגם חמישה מפתחות')
    expect(first.segments).toHaveLength(2)
    const rest = await call({cursor: first.next_cursor ?? '', limit: 100})
    expect(rest.next_cursor).toBeNull()
    expect(first.segments.length + rest.segments.length + 1).toBe(first.total)
    // After the last cue has ended, nothing more was said: an empty last page, not the opening again.
    expect(await call({from_seconds: 100_000})).toMatchObject({segments: [], total: first.total, next_cursor: null})
    const none = await client.callTool({name: 'get_transcript', arguments: {slug: 'ep-8-on-call'}})
    expect(none.isError).toBe(true)
    expect(textOf(none)).toContain('holds no transcript')
  })

  it('searches speaker names and English tags, within the collections asked for', async () => {
    const byName = await search('ג׳ני כץ', {collections: ['voices']})
    expect(byName.results[0]).toMatchObject({collection: 'voices', slug: 'jenny-katz'})
    const byTag = await search('kafka')
    expect(byTag.results.map((hit) => hit.slug)).toEqual(expect.arrayContaining(['ep-12-audio-at-scale', 'kafka-lag']))
    expect(
      (await search('kafka', {collections: ['meetups']})).results.every((hit) => hit.collection === 'meetups'),
    ).toBe(true)
  })
})

describe('prompts and cache hints (2026-07-28)', () => {
  it('offers Hebrew prompts whose messages name the tools to call', async () => {
    const client = await connect('2026-07-28')
    const {prompts} = await client.listPrompts()
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(catalogPrompts.map((prompt) => prompt.name).sort())
    for (const prompt of prompts) expect(prompt.description).toMatch(/[\u05d0-\u05ea]/)
    const summary = await client.getPrompt({name: 'summarise_episode', arguments: {slug: 'ep-22-cache-invalidation'}})
    const summaryText = JSON.stringify(summary.messages)
    expect(summaryText).toContain('get_episode')
    expect(summaryText).toContain('ep-22-cache-invalidation')
    expect(summaryText).toContain('סכם')
    const spoken = await client.getPrompt({name: 'who_spoke_about', arguments: {topic: 'ריאקט'}})
    expect(JSON.stringify(spoken.messages)).toMatch(/search_catalog[\s\S]*get_voice/)
    await expect(client.getPrompt({name: 'summarise_episode', arguments: {slug: 'Not A Slug!'}})).rejects.toMatchObject(
      {
        code: -32602,
      },
    )
  })

  it("marks list and read results public for as long as the API's max-age", async () => {
    const answers: unknown[] = []
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (response.headers.get('content-type')?.startsWith('application/json'))
        answers.push(await response.clone().json())
      return response
    }
    const client = new Client({name: 'catalog-tests', version: '1.0.0'}, {versionNegotiation: eras['2026-07-28']})
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {fetch: recording}))
    clients.push(client)
    const maxAge = Number(/max-age=(\d+)/.exec(CACHE_CONTROL)?.[1])
    expect(maxAge).toBeGreaterThan(0)
    answers.length = 0
    await client.listTools()
    await client.listPrompts()
    await client.listResources()
    await client.listResourceTemplates()
    await client.readResource({uri: 'http://api.test/api/v1/episodes/ep-22-cache-invalidation.json'})
    const hints = z.array(z.object({result: z.object({ttlMs: z.number(), cacheScope: z.string()})})).parse(answers)
    expect(hints.map((answer) => answer.result)).toEqual(
      Array.from({length: 5}, () => expect.objectContaining({ttlMs: maxAge * 1000, cacheScope: 'public'})),
    )
  })
})

describe('the /mcp endpoint over plain HTTP', () => {
  it('answers GET with 405 and Allow: POST', async () => {
    const response = await fetch(`${server.baseUrl}/mcp`)
    await readProblem(response, 405)
    expect(response.headers.get('allow')).toBe('POST')
  })

  it('reports liveness', async () => {
    const response = await fetch(`${server.baseUrl}/mcp/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({status: 'ok'})
  })

  it('refuses a foreign Host or Origin while listening on loopback (DNS rebinding), with a problem and never 401/403', async () => {
    const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}})
    const headers = {'content-type': 'application/json', accept: 'application/json, text/event-stream'}
    const foreignOrigin = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      body,
      headers: {...headers, origin: 'https://evil.example'},
    })
    await readProblem(foreignOrigin, 400)
    const {request} = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const call = request(
        `${server.baseUrl}/mcp`,
        {method: 'POST', headers: {...headers, host: 'evil.example'}},
        (response) => {
          response.resume()
          resolve(response.statusCode ?? 0)
        },
      )
      call.once('error', reject)
      call.end(body)
    })
    expect(status).toBe(421)
  })

  const jsonRpcHeaders = {'content-type': 'application/json', accept: 'application/json, text/event-stream'}
  const jsonRpcError = z.object({
    jsonrpc: z.literal('2.0'),
    error: z.object({code: z.number(), message: z.string()}),
    id: z.null(),
  })

  it('refuses a JSON-RPC batch as one invalid request, answering none of its messages', async () => {
    const batch = Array.from({length: 100}, (_, index) => ({
      jsonrpc: '2.0',
      id: index,
      method: 'tools/call',
      params: {name: 'list_episodes', arguments: {}},
    }))
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: jsonRpcHeaders,
      body: JSON.stringify(batch),
    })
    expect(response.status).toBe(400)
    const {error} = jsonRpcError.parse(await response.json())
    expect(error.code).toBe(-32600)
    expect(error.message).toMatch(/batch/)
  })

  // A server that read the body first would answer only at its body timeout, with a 408: the test
  // waits for that rather than timing the answer.
  it(
    'refuses a body over its limit from Content-Length alone, before reading it, with a JSON-RPC error',
    {timeout: 60_000},
    async () => {
      const {request} = await import('node:http')
      const answer = await new Promise<{status: number; body: string; connection: string | undefined}>(
        (resolve, reject) => {
          // Announces 4 MiB and sends a few bytes: an answer proves the server did not wait for the rest.
          const call = request(
            `${server.baseUrl}/mcp`,
            {method: 'POST', headers: {...jsonRpcHeaders, 'content-length': String(4 * 1024 * 1024)}},
            (response) => {
              let body = ''
              response.setEncoding('utf8')
              response.on('data', (chunk: string) => (body += chunk))
              response.on('end', () =>
                resolve({status: response.statusCode ?? 0, body, connection: response.headers.connection}),
              )
            },
          )
          call.once('error', reject)
          call.write('{"jsonrpc":"2.0",')
        },
      )
      expect(answer.status).toBe(413)
      expect(jsonRpcError.parse(JSON.parse(answer.body)).error.message).toMatch(/32768 bytes/)
      // The rest is never read: the connection it would come on is closed.
      expect(answer.connection).toBe('close')
    },
  )

  it('refuses a message nested 8,000 deep, wherever the nesting is, with 400 and -32600', async () => {
    const deep = `${'['.repeat(8000)}${']'.repeat(8000)}`
    const messages = [
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalog","arguments":{"query":${deep}}}}`,
      `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"x":${deep}}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{},"unknown":${deep}}`,
      `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":${deep}}}`,
    ]
    for (const body of messages) {
      const response = await fetch(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: {...jsonRpcHeaders, 'mcp-protocol-version': '2025-06-18'},
        body,
      })
      expect(response.status, body.slice(0, 80)).toBe(400)
      const {error} = jsonRpcError.parse(await response.json())
      expect(error.code).toBe(-32600)
      expect(error.message).toMatch(/nested/)
    }
    // Strings may hold any number of brackets.
    const quoted = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: {...jsonRpcHeaders, 'mcp-protocol-version': '2025-06-18'},
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {name: 'search_catalog', arguments: {query: `"\\${'['.repeat(2000)}`}},
      }),
    })
    expect(quoted.status).toBe(200)
    expect(server.loggedErrors).toEqual([])
  })

  // The SDK labels its event streams `Connection: keep-alive`, and Node let that override the
  // client's `Connection: close`: the connection stayed open until the idle timeout.
  it('closes the connection after an event-stream answer when the client asks it to, and only then', async () => {
    const toolsList = (connection: string) =>
      rawRequest(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: {...jsonRpcHeaders, 'mcp-protocol-version': '2025-06-18', connection},
        body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}}),
      })
    const closing = await toolsList('close')
    expect(closing.status).toBe(200)
    expect(closing.headers['content-type']).toBe('text/event-stream')
    expect(closing.body.toString()).toContain('list_episodes')
    expect(closing.headers.connection).toBe('close')
    expect((await toolsList('keep-alive')).headers.connection).toBe('keep-alive')
  })

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const response = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: jsonRpcHeaders,
      body: '{"jsonrpc": ',
    })
    expect(response.status).toBe(400)
    expect(jsonRpcError.parse(await response.json()).error.code).toBe(-32700)
  })

  it('answers tools/list in at most 10 KB and a default list_episodes in at most 8 KB', async () => {
    const post = async (body: unknown) => {
      const response = await fetch(`${server.baseUrl}/mcp`, {
        method: 'POST',
        headers: {...jsonRpcHeaders, 'mcp-protocol-version': '2025-06-18'},
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(200)
      return Buffer.byteLength(await response.text())
    }
    // Nine tools with their schemas, about 2,500 tokens of a model's context (8 KB held eight; get_transcript and
    // the search's cue took it to 9.1 KB).
    expect(await post({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}})).toBeLessThanOrEqual(10 * 1024)
    expect(
      await post({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'list_episodes', arguments: {}}}),
    ).toBeLessThanOrEqual(8 * 1024)
  })
})

describe('MCP resources/list over a catalog of about 1,000 items', () => {
  let grown: TestServer
  let grownClient: Client
  beforeAll(async () => {
    const documents = growDataset(sampleDocuments, 1000)
    grown = await startTestServer({source: createEmbeddedSource('grown sample', async () => documents)})
    grownClient = new Client({name: 'catalog-tests', version: '1.0.0'}, {versionNegotiation: {mode: 'legacy'}})
    await grownClient.connect(new StreamableHTTPClientTransport(new URL(`${grown.baseUrl}/mcp`)))
  })
  afterAll(async () => {
    await grownClient.close()
    await grown.close()
  })

  it('pages with the protocol cursor, and every page together is each document once, as many as the discovery documents say', async () => {
    const pages: string[][] = []
    let cursor: string | undefined
    do {
      // One page per request (the client's listResources() without a cursor walks them all).
      const page = await grownClient.request({method: 'resources/list', params: cursor === undefined ? {} : {cursor}})
      expect(page.resources.length).toBeLessThanOrEqual(RESOURCES_PER_PAGE)
      pages.push(page.resources.map((resource) => resource.uri))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    const uris = pages.flat()
    expect(pages.length).toBeGreaterThan(2)
    expect(new Set(uris).size).toBe(uris.length)
    expect((await grownClient.listResources()).resources.map((resource) => resource.uri)).toEqual(uris)
    const {counts} = z
      .object({counts: z.record(z.string(), z.number())})
      .parse(await (await fetch(`${grown.baseUrl}/api/v1/all.json`)).json())
    const fixed = catalogResources('http://api.test').filter((resource) => !resource.template)
    expect(uris.length).toBe(fixed.length + Object.values(counts).reduce((sum, count) => sum + count, 0))
    expect(uris).toContain('http://api.test/api/v1/voices/noa-levi-3.json')

    const card = z
      .object({_meta: z.record(z.string(), z.object({resources: z.number()}).loose())})
      .loose()
      .parse(await (await fetch(`${grown.baseUrl}/.well-known/mcp/server-card.json`)).json())
    expect(Object.values(card._meta)[0]?.resources).toBe(uris.length)
    expect(await (await fetch(`${grown.baseUrl}/llms.txt`)).text()).toContain(`${uris.length} resources`)
    const aiCatalog = JSON.stringify(await (await fetch(`${grown.baseUrl}/.well-known/ai-catalog.json`)).json())
    expect(aiCatalog).toContain(`"resources":${uris.length}`)
  })

  it('refuses a cursor it did not make with invalid params (-32602)', async () => {
    await expect(grownClient.listResources({cursor: 'bm90LWEtY3Vyc29y'})).rejects.toMatchObject({code: -32602})
  })
})
