// Integration: the real app on a loopback port; every discovery document is fetched over HTTP,
// checked for its format, and every link it publishes on this origin is followed.
import {createHash} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {catalogResources} from '../../server/mcp/resources.ts'
import {catalogTools} from '../../server/mcp/tools.ts'
import {episode} from '../fixtures/documents.ts'
import {readProblem} from '../helpers/contract.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
let documents: SanityDocument[]

beforeAll(async () => {
  documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  server = await startTestServer({
    source: createEmbeddedSource('in-memory sample', async () => documents),
    environment: {CONTACT_EMAIL: 'podcast@codetalks.example'},
  })
})
afterAll(() => server.close())

/** Documents name the public base URL; the test server answers them on its own port. */
const local = (url: string) => url.replace('http://api.test', server.baseUrl)
const get = (path: string, init?: RequestInit) =>
  fetch(local(path.startsWith('http') ? path : `${server.baseUrl}${path}`), init)
const getJson = async (path: string) => {
  const response = await get(path)
  expect(response.status, path).toBe(200)
  expect(response.headers.get('content-type'), path).toMatch(/^application\/(json|linkset\+json)/)
  return z.record(z.string(), z.unknown()).parse(await response.json())
}
/** Every absolute URL on this origin that a document mentions. */
const linksIn = (text: string) =>
  [...new Set(text.match(/http:\/\/api\.test[^\s"')<>\]]*/g) ?? [])].map((url) => url.replace(/[.,:;]+$/, ''))
async function expectAllResolve(text: string, identifiers: string[] = []) {
  const links = linksIn(text).filter((url) => !url.includes('{slug}') && !identifiers.includes(url))
  expect(links.length).toBeGreaterThan(0)
  for (const url of links) {
    const response = await get(url, {
      method: url.endsWith('/mcp') ? 'POST' : 'GET',
      ...(url.endsWith('/mcp') ? {body: '{}', headers: {'content-type': 'application/json'}} : {}),
    })
    expect(
      response.status === 200 || (url.endsWith('/mcp') && response.status < 500 && response.status !== 404),
      `${url} answers ${response.status}`,
    ).toBe(true)
  }
}
const counts = () => server.store.current().counts

describe('llms.txt', () => {
  it('follows the llms.txt format, states live counts, and links only to what is served', async () => {
    const response = await get('/llms.txt')
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const text = await response.text()
    expect(text).toMatch(/^# Code Talks Catalog API\n\n> [^\n]+\n/)
    expect(text.match(/^## .+$/gm)).toEqual(['## API', '## MCP', '## Docs', '## Optional'])
    const {episodes, meetups, voices} = counts()
    expect(text).toContain(`${episodes} episodes, ${meetups} meetup talks and ${voices} speaker profiles`)
    expect(text).toContain(
      `${catalogTools.length} read-only tools (${catalogTools.map((tool) => tool.name).join(', ')})`,
    )
    for (const line of text.split('\n').filter((line) => line.startsWith('- ')))
      expect(line).toMatch(/^- \[[^\]]+\]\(http:\/\/api\.test\/[^)]*\)(: .+)?$/)
    await expectAllResolve(text)
  })

  it('moves with the content: counts come from the snapshot', async () => {
    const before = counts().episodes
    documents = [...documents, episode('ep-50-discovery', {_id: 'discovery-episode', publishedAt: '2026-11-10'})]
    await server.store.refresh([{documentId: 'discovery-episode', collection: 'episodes'}])
    expect(await (await get('/llms.txt')).text()).toContain(`${before + 1} episodes`)
    const sitemap = await (await get('/sitemaps/episodes.xml')).text()
    expect(sitemap).toContain('http://api.test/api/v1/episodes/ep-50-discovery.json')
  })
})

describe('authentication documents', () => {
  it('walks through "no authentication" in auth.md', async () => {
    const response = await get('/auth.md')
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8')
    const text = await response.text()
    expect(text).toMatch(/^# Authentication: none/)
    for (const phrase of [
      'ignored, not rejected',
      'never answers 401 or 403',
      'User-Agent',
      'podcast@codetalks.example',
    ])
      expect(text).toContain(phrase)
  })

  it('serves oauth-protected-resource exactly as the spec states', async () => {
    const document = await getJson('/.well-known/oauth-protected-resource')
    expect(document).toMatchObject({
      resource: 'http://api.test/api/v1',
      scopes_supported: [],
      bearer_methods_supported: [],
    })
    const agentAuth = z.record(z.string(), z.unknown()).parse(document.agent_auth)
    expect(agentAuth).toMatchObject({
      identity_types_supported: ['anonymous'],
      skill: 'http://api.test/auth.md',
      identity_assertion_supported: false,
      service_auth_supported: false,
    })
    for (const absent of ['identity_endpoint', 'claim_endpoint', 'events_endpoint'])
      expect(agentAuth).not.toHaveProperty(absent)
    expect(document).not.toHaveProperty('authorization_servers')
  })

  it('has no authorization server metadata', async () => {
    await readProblem(await get('/.well-known/oauth-authorization-server'), 404)
  })
})

describe('the RFC 9727 API catalog', () => {
  it('is a linkset with its profile, announced by a Link header on GET and HEAD', async () => {
    for (const method of ['GET', 'HEAD']) {
      const response = await get('/.well-known/api-catalog', {method})
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe(
        'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
      )
      expect(response.headers.get('link')).toBe('<http://api.test/.well-known/api-catalog>; rel="api-catalog"')
    }
    const document = await getJson('/.well-known/api-catalog')
    const linkset = z
      .array(z.object({anchor: z.string(), 'service-desc': z.array(z.object({href: z.string()}))}).loose())
      .parse(document.linkset)
    const anchors = linkset.map((entry) => entry.anchor)
    expect(anchors).toEqual(['http://api.test/api/v1', 'http://api.test/api/v1/sandbox'])
    // Anchors name the APIs (RFC 9727); every link they carry must resolve.
    await expectAllResolve(JSON.stringify(document), anchors)
  })
})

describe('MCP and agent documents', () => {
  it('serves the same server card at both locations, naming the live registry', async () => {
    const [wellKnown, next] = await Promise.all([get('/.well-known/mcp/server-card.json'), get('/mcp/server-card')])
    const card = await wellKnown.text()
    expect(await next.text()).toBe(card)
    const parsed = z
      .object({
        name: z.string(),
        version: z.string(),
        remotes: z.array(z.object({type: z.literal('streamable-http'), url: z.string()}).loose()),
        _meta: z.record(
          z.string(),
          z.object({tools: z.array(z.string()), resources: z.number(), resourceTemplates: z.number()}).loose(),
        ),
      })
      .loose()
      .parse(JSON.parse(card))
    expect(parsed.remotes).toEqual([expect.objectContaining({url: 'http://api.test/mcp'})])
    const summary = Object.values(parsed._meta)[0]
    expect(summary?.tools).toEqual(catalogTools.map((tool) => tool.name))
    // What resources/list returns over all its pages: the fixed API documents and one per item.
    const {counts} = z.object({counts: z.record(z.string(), z.number())}).parse(await getJson('/api/v1/all.json'))
    const items = Object.values(counts).reduce((sum, count) => sum + count, 0)
    expect(summary?.resources).toBe(
      catalogResources('http://api.test').filter((resource) => !resource.template).length + items,
    )
    expect(summary?.resourceTemplates).toBe(
      catalogResources('http://api.test').filter((resource) => resource.template).length,
    )
  })

  it('lists skills with sha256 digests of the exact bytes served', async () => {
    const index = z
      .object({
        skills: z.array(
          z.object({
            name: z.string(),
            type: z.literal('skill-md'),
            description: z.string(),
            url: z.string(),
            digest: z.string(),
          }),
        ),
      })
      .parse(await getJson('/.well-known/agent-skills/index.json'))
    expect(index.skills.length).toBe(2)
    for (const skill of index.skills) {
      const response = await get(skill.url)
      expect(response.status).toBe(200)
      const bytes = Buffer.from(await response.arrayBuffer())
      expect(skill.digest).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`)
      expect(bytes.toString('utf8')).toMatch(new RegExp(`^---\\nname: ${skill.name}\\ndescription: .+\\n---\\n`))
    }
  })

  it('lists the server card, OpenAPI and skills in ai-catalog.json and ard.json, all resolving', async () => {
    for (const path of ['/.well-known/ai-catalog.json', '/.well-known/ard.json']) {
      const document = JSON.stringify(await getJson(path))
      for (const target of [
        '/.well-known/mcp/server-card.json',
        '/api/openapi.json',
        '/.well-known/agent-skills/index.json',
      ])
        expect(document, path).toContain(`http://api.test${target}`)
      await expectAllResolve(document)
    }
    const aiCatalog = await getJson('/.well-known/ai-catalog.json')
    expect(JSON.stringify(aiCatalog)).toContain(`"tools":${catalogTools.length}`)
  })

  it('serves an agent card that claims no interface it does not answer', async () => {
    const card = await getJson('/.well-known/agent-card.json')
    expect(card.supportedInterfaces).toEqual([])
    expect(
      z
        .array(z.object({id: z.string()}).loose())
        .parse(card.skills)
        .map((skill) => skill.id),
    ).toEqual(catalogTools.map((tool) => tool.name))
    await expectAllResolve(JSON.stringify(card))
  })
})

describe('sitemaps', () => {
  it('lists every API record dated by its content: the Last-Modified a server that read this content from the start serves', async () => {
    // This server applied an edit (above); the dates of its own Last-Modified say when, the sitemap must not.
    const fresh = await startTestServer({source: createEmbeddedSource('the same content', async () => documents)})
    const index = await (await get('/sitemap-index.xml')).text()
    expect(index).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<sitemapindex xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    )
    const sitemapUrls = [...index.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1] ?? '')
    expect(sitemapUrls.map((url) => new URL(url).pathname)).toEqual([
      '/sitemaps/api.xml',
      '/sitemaps/episodes.xml',
      '/sitemaps/meetups.xml',
      '/sitemaps/voices.xml',
    ])
    let items = 0
    try {
      for (const sitemapUrl of sitemapUrls) {
        const response = await get(sitemapUrl)
        expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8')
        const entries = [
          ...(await response.text()).matchAll(/<url><loc>([^<]+)<\/loc><lastmod>([^<]+)<\/lastmod><\/url>/g),
        ]
        if (!sitemapUrl.endsWith('/api.xml')) items += entries.length
        for (const [, loc = '', lastmod = ''] of entries) {
          expect((await get(loc, {method: 'HEAD'})).status, loc).toBe(200)
          const item = await fetch(`${fresh.baseUrl}${new URL(loc).pathname}`, {method: 'HEAD'})
          expect(new Date(lastmod).getTime(), loc).toBe(new Date(item.headers.get('last-modified') ?? '').getTime())
        }
      }
    } finally {
      await fresh.close()
    }
    const {episodes, meetups, voices} = counts()
    expect(items).toBe(episodes + meetups + voices)
  })
})

describe('every discovery document', () => {
  it.each([
    '/api/openapi.json',
    '/docs',
    '/llms.txt',
    '/auth.md',
    '/.well-known/api-catalog',
    '/.well-known/oauth-protected-resource',
    '/.well-known/mcp/server-card.json',
    '/.well-known/agent-skills/index.json',
    '/.well-known/ai-catalog.json',
    '/.well-known/ard.json',
    '/.well-known/agent-card.json',
    '/sitemap-index.xml',
  ])('%s has validators, answers 304 to them, and is read-only', async (path) => {
    const response = await get(path)
    expect(response.status).toBe(200)
    const etag = response.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}(-br|-gzip)?"$/)
    expect((await get(path, {headers: {'If-None-Match': etag}})).status).toBe(304)
    const post = await get(path, {method: 'POST'})
    await readProblem(post, 405)
  })
})
