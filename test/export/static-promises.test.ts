// The site documents of `npm run export` (static files behind nginx, with no MCP server and no
// `limit`) promise neither, and the origin's still do. Built from the embedded sample, no socket.
import {describe, expect, it} from 'vitest'
import {staticFiles} from '../../server/export/static-files.ts'
import {sampleSnapshot} from '../helpers/sample.ts'

async function siteDocuments(staticExport: boolean): Promise<Map<string, string>> {
  const snapshot = await sampleSnapshot({staticExport})
  await snapshot.warm()
  // The OpenAPI document is the API's contract, served by the origin and the export alike; sitemaps and the feed name items only.
  const promising = staticFiles(snapshot).filter(
    ({url}) => !url.startsWith('/api/') && !url.startsWith('/sitemap') && url !== '/feed.xml',
  )
  return new Map(promising.map(({url, representation}) => [url, representation.body.toString('utf8')]))
}

const MCP = /\/mcp\b|MCP server|mcp-server/
const PAGING_EXAMPLE = /[?&](limit|cursor)=/

describe("the static export's documents", () => {
  it('name no MCP endpoint, server card or agent card, and no limit or cursor example', async () => {
    const documents = await siteDocuments(true)
    expect([...documents.keys()]).toEqual(
      expect.arrayContaining([
        '/docs',
        '/llms.txt',
        '/auth.md',
        '/.well-known/api-catalog',
        '/.well-known/ai-catalog.json',
        '/.well-known/ard.json',
      ]),
    )
    expect([...documents.keys()].filter((url) => /mcp|agent-card/.test(url))).toEqual([])
    const broken = [...documents].flatMap(([url, body]) =>
      [
        MCP.exec(body) && `${url}: ${MCP.exec(body)?.[0]}`,
        PAGING_EXAMPLE.exec(body) && `${url}: ${PAGING_EXAMPLE.exec(body)?.[0]}`,
      ].filter(Boolean),
    )
    expect(broken).toEqual([])
    expect(documents.get('/docs')).toContain('Lists come in pages of 100 items')
  })

  it("are the origin's without those promises: the origin still names its MCP server and limit examples", async () => {
    const documents = await siteDocuments(false)
    expect(documents.get('/.well-known/mcp/server-card.json')).toContain('http://api.test/mcp')
    expect(documents.get('/llms.txt')).toMatch(/## MCP/)
    expect(documents.get('/docs')).toMatch(/episodes\.json\?limit=5/)
  })
})
