import type {ToolDefinition} from '../mcp/tool-definition.ts'

export interface Skill {
  name: string
  description: string
  markdown: string
}

/** Agent Skills (SKILL.md with YAML front matter) describing how to use this service. */
export function catalogSkills(settings: {
  publicBaseUrl: string
  apiName: string
  tools: readonly ToolDefinition[]
  withMcp: boolean
}): Skill[] {
  const base = settings.publicBaseUrl
  const skill = (name: string, description: string, body: string): Skill => ({
    name,
    description,
    markdown: `---\nname: ${name}\ndescription: ${description}\n---\n\n${body.trim()}\n`,
  })
  const skills = [
    skill(
      'podcast-catalog-api',
      'Read the Hebrew tech podcast catalog (episodes, meetup talks, speakers) over its read-only JSON API. Use when asked about episodes, guests, talks or speakers of the podcast.',
      `
# Reading the ${settings.apiName}

No authentication, no keys: plain GET requests.

1. Fetch \`${base}/api/v1/all.json\` for everything at once (episodes and meetups newest first, voices by Hebrew name), or a list: \`${base}/api/v1/episodes.json\`, \`${base}/api/v1/meetups.json\`, \`${base}/api/v1/voices.json\`.
2. Fetch one item by slug: \`${base}/api/v1/episodes/{slug}.json\` (and \`meetups/\`, \`voices/\`).
3. Episode \`guests\` and meetup \`speakers\` are PersonRefs: resolve \`api_url\` for a speaker's role and biography.
4. ${settings.withMcp ? 'Lists take `limit` (1-500, default 100) and `cursor`; follow' : 'Lists come in pages of 100; follow'} \`pagination.next\` until it is null.
5. Send back \`ETag\` as \`If-None-Match\` to get a 304 when nothing changed; \`${base}/sitemap-index.xml\` has a lastmod per item.
6. Errors are application/problem+json; 404 means the slug does not exist (re-read the list), 429 means wait \`Retry-After\` seconds.

Content text is Hebrew; tags and roles are English. Cite items by \`url\` (the canonical page), not \`api_url\`.
The full contract: ${base}/api/openapi.json. Documentation: ${base}/docs.
`,
    ),
    skill(
      'podcast-catalog-mcp',
      'Search and read the Hebrew tech podcast catalog through its MCP server (Streamable HTTP, no authentication). Use when an MCP client is available.',
      `
# Using the catalog's MCP server

Endpoint: \`${base}/mcp\` (Streamable HTTP, stateless, no session, no authentication). It speaks the 2026-07-28 protocol and the older \`initialize\` handshake.

Tools (${settings.tools.length}, all read-only):
${settings.tools.map((tool) => `- \`${tool.name}\`: ${tool.description}`).join('\n')}

Start with \`search_catalog\` for free text in Hebrew or English; it folds niqqud and final letters and tolerates prefixes such as ה, ו, ב, ל, מ, ש. Unknown slugs come back as errors that name the closest slugs.
Resources are the API documents themselves (\`${base}/api/v1/...\`), with slug completion on the item templates.
`,
    ),
  ]
  // A static export serves no MCP server, so it describes none.
  return settings.withMcp ? skills : skills.slice(0, 1)
}
