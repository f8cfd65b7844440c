import {createHash} from 'node:crypto'
import {buildOpenApiDocument} from '../api/openapi.ts'
import {MCP_INSTRUCTIONS, MCP_SERVER_NAME} from '../mcp/mcp-server.ts'
import {catalogResources} from '../mcp/resources.ts'
import {catalogTools} from '../mcp/tools.ts'
import {resourceCount} from '../mcp/resource-list.ts'
import type {SiteDocument} from '../snapshot/site-documents-on-first-use.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {SERVER_VERSION} from '../version.ts'
import {buildFeed, feedItemCount, FEED_PATH, type FeedSettings} from '../feed/rss-feed.ts'
import {ACCEPT_RANGES} from '../snapshot/representation.ts'
import {buildDeveloperPortal} from './portal.ts'
import {catalogSkills} from './skills.ts'
import {buildSitemaps} from './sitemaps.ts'
import type {LeftOut} from '../snapshot/site-documents-on-first-use.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'

export interface SiteSettings {
  publicBaseUrl: string
  siteUrl: string
  /** The feed's public address (its `atom:link rel="self"`). */
  feedUrl: string
  websubHub?: string | undefined
  apiName: string
  contactEmail?: string | undefined
  /**
   * For `npm run export`: static files behind nginx answer no MCP and no `limit`, so the documents
   * promise neither (no MCP endpoint, server card or agent card; list examples without `limit`).
   */
  staticExport?: boolean | undefined
}

const LINKSET = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
// The OpenAPI document depends on the settings alone, so it is made once for them, not per snapshot.
let lastOpenApi: {key: string; document: ReturnType<typeof buildOpenApiDocument>} | undefined
function openApiDocumentFor(settings: SiteSettings): ReturnType<typeof buildOpenApiDocument> {
  const key = JSON.stringify([settings.publicBaseUrl, settings.apiName, settings.contactEmail])
  if (lastOpenApi?.key !== key) lastOpenApi = {key, document: buildOpenApiDocument(settings)}
  return lastOpenApi.document
}
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/**
 * Every document outside `/api/v1`, made from one snapshot and the MCP definitions, so counts,
 * links and digests always agree with what the API and the MCP server serve.
 */
/** `leftOut` hears of each item an XML document (a sitemap) left out because it could not be written. */
export function buildSiteDocuments(
  snapshot: Snapshot,
  settings: SiteSettings,
  leftOut?: (item: LeftOut) => void,
): SiteDocument[] {
  const base = settings.publicBaseUrl
  const withMcp = settings.staticExport !== true
  const url = {
    openapi: `${base}/api/openapi.json`,
    docs: `${base}/docs`,
    auth: `${base}/auth.md`,
    llms: `${base}/llms.txt`,
    index: `${base}/api/v1/index.json`,
    all: `${base}/api/v1/all.json`,
    mcp: `${base}/mcp`,
    mcpHealth: `${base}/mcp/health`,
    serverCard: `${base}/.well-known/mcp/server-card.json`,
    apiCatalog: `${base}/.well-known/api-catalog`,
    skillsIndex: `${base}/.well-known/agent-skills/index.json`,
    sitemap: `${base}/sitemap-index.xml`,
  }
  // Counted, not built: the feed is linked here, and made only when a client asks for it (it is as
  // large as the bulk document).
  const feedItems = feedItemCount(snapshot.catalog)
  const resources = catalogResources(base)
  const fixedResources = resources.filter((resource) => !resource.template)
  // What resources/list returns, over all its pages: the fixed documents and one per item.
  const listedResources = resourceCount(snapshot, fixedResources)
  const templates = resources.filter((resource) => resource.template)
  const {episodes, meetups, voices} = snapshot.counts
  const openapi = openApiDocumentFor(settings)
  const skills = catalogSkills({publicBaseUrl: base, apiName: settings.apiName, tools: catalogTools, withMcp}).map(
    (skill) => ({
      ...skill,
      path: `/.well-known/agent-skills/${skill.name}/SKILL.md`,
      digest: `sha256:${sha256(skill.markdown)}`,
    }),
  )

  const serverCard = json({
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: `${new URL(base).hostname}/${MCP_SERVER_NAME}`,
    title: `${settings.apiName} (MCP)`,
    description: MCP_INSTRUCTIONS,
    version: SERVER_VERSION,
    websiteUrl: url.docs,
    remotes: [
      {
        type: 'streamable-http',
        url: url.mcp,
        supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      },
    ],
    _meta: {
      'podcast-catalog/summary': {
        authentication: 'none',
        tools: catalogTools.map((tool) => tool.name),
        resources: listedResources,
        resourceTemplates: templates.length,
      },
    },
  })

  const llms = `# ${settings.apiName}

> Read-only JSON API${withMcp ? ' and MCP server' : ''} for a Hebrew tech podcast catalog: ${episodes} episodes, ${meetups} meetup talks and ${voices} speaker profiles. No authentication.

Content text (titles, descriptions, abstracts, biographies, takeaways, FAQ) is Hebrew; tags and roles are English. Cite items by their \`url\` (the canonical page), not by \`api_url\`. Audio, video, artwork and written content belong to the publisher; catalog metadata (titles, dates, slugs, tags, URLs) may be reused with attribution.

## API

- [Service index](${url.index}): name, version and the endpoint map
- [Everything](${url.all}): all ${episodes + meetups + voices} items in one document; use it instead of looping the lists
- [Episodes](${base}/api/v1/episodes.json): newest first; one episode at ${base}/api/v1/episodes/{slug}.json
- [Meetup talks](${base}/api/v1/meetups.json): newest first; one talk at ${base}/api/v1/meetups/{slug}.json
- [Speakers](${base}/api/v1/voices.json): Hebrew name order; one speaker at ${base}/api/v1/voices/{slug}.json
- [OpenAPI 3.1](${url.openapi}): the machine-readable contract
${feedItems === undefined ? '' : `- [Podcast RSS feed](${settings.feedUrl}): the ${feedItems} episodes with audio, newest first, for podcast apps (RSS 2.0 with the iTunes and Podcasting 2.0 namespaces)\n`}${
    withMcp
      ? `
## MCP

- [MCP endpoint](${url.mcp}): Streamable HTTP, stateless, no authentication; ${catalogTools.length} read-only tools (${catalogTools.map((tool) => tool.name).join(', ')}), ${listedResources} resources (${fixedResources.length} API documents and one per item; resources/list pages them with a cursor) and ${templates.length} resource templates
- [Server card](${url.serverCard}): how to connect
`
      : ''
  }
## Docs

- [Developer portal](${url.docs}): reference, errors, rate limits, pagination, versioning
- [Authentication](${url.auth}): there is none, and why
${skills.map((skill) => `- [Skill: ${skill.name}](${base}${skill.path}): ${skill.description}`).join('\n')}

## Optional

- [Sitemap index](${url.sitemap}): lastmod of every API record, to decide what to re-read
- [API catalog](${url.apiCatalog}): RFC 9727 linkset
`

  const auth = `# Authentication: none

${settings.apiName} has no authentication, and nothing here needs credentials.

- Every operation of \`/api/v1\` (and \`/api/v1/sandbox\`)${withMcp ? ` and the MCP server at \`${url.mcp}\`` : ''} is unauthenticated. There is no API key, registration, client, token, scope or \`Authorization\` header.
- A sent \`Authorization\` header is ignored, not rejected.
- The service never answers 401 or 403 and never sends a \`WWW-Authenticate\` challenge. Such a response did not come from this service.
- There is no \`/.well-known/oauth-authorization-server\`, and no registration, token or revocation endpoint.
- \`${base}/.well-known/oauth-protected-resource\` (RFC 9728) says the same in machine-readable form: no scopes, no bearer methods, anonymous agents only.
- The service index field \`authentication\` is always \`none\`.

## What we ask instead

Send a descriptive \`User-Agent\` naming your agent and a contact URL${settings.contactEmail ? `, and write to ${settings.contactEmail} for higher limits or to report abuse` : ''}. Requests are rate limited at the origin; a 429 carries \`Retry-After\` in seconds.

## Steps for an agent

1. GET \`${url.index}\` with no credentials.
2. Follow the \`endpoints\` map, or read \`${url.openapi}\`.
${withMcp ? `3. For MCP, POST JSON-RPC to \`${url.mcp}\` with no credentials.\n` : ''}`

  const protectedResource = json({
    resource: `${base}/api/v1`,
    resource_name: settings.apiName,
    resource_documentation: url.docs,
    scopes_supported: [],
    bearer_methods_supported: [],
    agent_auth: {
      identity_types_supported: ['anonymous'],
      skill: url.auth,
      identity_assertion_supported: false,
      service_auth_supported: false,
    },
  })

  const apiCatalog = json({
    linkset: [
      {
        anchor: `${base}/api/v1`,
        'service-desc': [{href: url.openapi, type: 'application/vnd.oai.openapi+json;version=3.1'}],
        'service-doc': [{href: url.docs, type: 'text/html'}],
        'service-meta': [{href: url.index, type: 'application/json'}],
        ...(withMcp ? {status: [{href: url.mcpHealth, type: 'application/json'}]} : {}),
      },
      {
        anchor: `${base}/api/v1/sandbox`,
        'service-desc': [{href: url.openapi, type: 'application/vnd.oai.openapi+json;version=3.1'}],
        'service-doc': [{href: url.docs, type: 'text/html'}],
      },
    ],
  })

  const skillsIndex = json({
    $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
    skills: skills.map((skill) => ({
      name: skill.name,
      type: 'skill-md',
      description: skill.description,
      url: `${base}${skill.path}`,
      digest: skill.digest,
    })),
  })

  const catalogEntries = [
    ...(withMcp
      ? [
          {
            type: 'mcp-server',
            name: MCP_SERVER_NAME,
            url: url.serverCard,
            endpoint: url.mcp,
            tools: catalogTools.length,
            resources: listedResources,
            resource_templates: templates.length,
          },
        ]
      : []),
    {type: 'openapi', name: settings.apiName, url: url.openapi},
    {type: 'agent-skills', url: url.skillsIndex, skills: skills.length},
    {type: 'llms-txt', url: url.llms},
    {type: 'api-catalog', url: url.apiCatalog},
    ...(feedItems === undefined
      ? []
      : [{type: 'rss-feed', name: 'podcast feed', url: settings.feedUrl, items: feedItems}]),
  ]
  const aiCatalog = json({
    version: '1.0',
    name: settings.apiName,
    description: `Hebrew tech podcast catalog: ${episodes} episodes, ${meetups} meetup talks, ${voices} speakers.`,
    authentication: 'none',
    documentation: url.docs,
    ...(settings.contactEmail ? {contact: settings.contactEmail} : {}),
    entries: catalogEntries,
  })
  const ard = json({
    version: '1.0',
    resources: catalogEntries.map(({type, url: href, ...rest}) => ({
      type,
      href,
      ...('endpoint' in rest ? {endpoint: rest.endpoint} : {}),
    })),
  })

  // An A2A agent card describes skills; this service answers no A2A protocol binding, so it
  // claims no interfaces and points to what it really serves: MCP, OpenAPI and documentation.
  const agentCard = json({
    name: settings.apiName,
    description: `Read-only catalog of a Hebrew tech podcast (${episodes} episodes, ${meetups} meetup talks, ${voices} speakers). Reach it over MCP (${url.mcp}) or the JSON API (${url.openapi}).`,
    version: SERVER_VERSION,
    documentationUrl: url.docs,
    supportedInterfaces: [],
    capabilities: {streaming: false, pushNotifications: false},
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    securitySchemes: {},
    security: [],
    skills: catalogTools.map((tool) => ({
      id: tool.name,
      name: tool.title,
      description: tool.description,
      tags: ['podcast', 'catalog', 'read-only'],
      inputModes: ['application/json'],
      outputModes: ['application/json'],
    })),
  })

  return [
    {path: '/api/openapi.json', contentType: MEDIA_TYPES.json, body: json(openapi)},
    {
      path: '/docs',
      contentType: MEDIA_TYPES.html,
      body: buildDeveloperPortal({
        openapi,
        settings,
        snapshot,
        tools: catalogTools,
        feedUrl: feedItems === undefined ? undefined : settings.feedUrl,
        staticExport: !withMcp,
      }),
    },
    {path: '/llms.txt', contentType: MEDIA_TYPES.text, body: llms},
    {path: '/auth.md', contentType: MEDIA_TYPES.markdown, body: auth},
    {path: '/.well-known/oauth-protected-resource', contentType: MEDIA_TYPES.json, body: protectedResource},
    {
      path: '/.well-known/api-catalog',
      contentType: LINKSET,
      body: apiCatalog,
      headers: {Link: `<${url.apiCatalog}>; rel="api-catalog"`},
    },
    ...(withMcp
      ? [
          {path: '/.well-known/mcp/server-card.json', contentType: MEDIA_TYPES.json, body: serverCard},
          {path: '/mcp/server-card', contentType: MEDIA_TYPES.json, body: serverCard},
        ]
      : []),
    {path: '/.well-known/agent-skills/index.json', contentType: MEDIA_TYPES.json, body: skillsIndex},
    ...skills.map((skill) => ({path: skill.path, contentType: MEDIA_TYPES.markdown, body: skill.markdown})),
    {path: '/.well-known/ai-catalog.json', contentType: MEDIA_TYPES.json, body: aiCatalog},
    {path: '/.well-known/ard.json', contentType: MEDIA_TYPES.json, body: ard},
    // Its skills are the MCP tools, which a static copy does not serve.
    ...(withMcp ? [{path: '/.well-known/agent-card.json', contentType: MEDIA_TYPES.json, body: agentCard}] : []),
    ...buildSitemaps(snapshot, base, leftOut),
  ]
}

const feedSettingsOf = (settings: SiteSettings): FeedSettings => ({
  selfUrl: settings.feedUrl,
  siteUrl: settings.siteUrl,
  websubHub: settings.websubHub,
})

/** The podcast feed as a site document the snapshot builds on its own (see SnapshotSettings.feed). */
export function feedSiteDocument(
  snapshot: Snapshot,
  settings: SiteSettings,
  leftOut?: (item: LeftOut) => void,
): SiteDocument | undefined {
  const feed = buildFeed(snapshot.catalog, feedSettingsOf(settings))
  if (feed && leftOut) for (const item of feed.leftOut) leftOut(item)
  return (
    feed && {path: FEED_PATH, contentType: MEDIA_TYPES.feed, body: feed.body, etag: feed.etag, headers: ACCEPT_RANGES}
  )
}
