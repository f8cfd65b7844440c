import {
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  ResourceTemplate,
} from '@modelcontextprotocol/server'
import {CACHE_CONTROL} from '../http/representation-response.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {catalogPrompts} from './prompts.ts'
import {catalogResources} from './resources.ts'
import {resourcePage} from './resource-list.ts'
import {catalogTools} from './tools.ts'

// The MCP server over the catalog: the tools, and the API documents as resources, both read from
// the current snapshot, so they always answer from the same content as the HTTP API.

export const MCP_SERVER_NAME = 'podcast-catalog'
export const MCP_INSTRUCTIONS = [
  'A read-only catalog of a Hebrew tech podcast: episodes, internal meetup talks and speaker profiles ("voices").',
  'Find items with search_catalog (Hebrew or English), browse with list_episodes, list_meetups and list_voices, and read one with get_episode, get_meetup or get_voice.',
  'Content text is Hebrew; tags and roles are English. Cite items by their `url` (the canonical page), not their `api_url`.',
  'Audio, video, artwork and written content belong to the publisher; catalog metadata may be reused with attribution.',
].join(' ')

export interface CatalogMcpOptions {
  snapshot: () => Snapshot
  /** The protocol era this instance answers: only a 2026-07-28 client can hold a listen stream. */
  era: 'legacy' | 'modern'
  publicBaseUrl: string
  name: string
  version: string
  instructions: string
}

/** The HTTP API's `max-age` for the same documents: a client's copy is as fresh as a browser's. */
const API_MAX_AGE_MS = Number(/max-age=(\d+)/.exec(CACHE_CONTROL)?.[1] ?? 0) * 1000
const SHARED_LIKE_THE_API = {ttlMs: API_MAX_AGE_MS, cacheScope: 'public'} as const

/**
 * What the server says it delivers, and only that: the tool and prompt lists are fixed in the code,
 * and the resource list and resources change with each snapshot, told on a 2026-07-28 listen stream
 * (listen-streams.ts). A stateless server can tell an `initialize`-era client nothing.
 */
function capabilitiesFor(era: CatalogMcpOptions['era']) {
  const delivered = era === 'modern'
  return {
    tools: {listChanged: false},
    prompts: {listChanged: false},
    resources: {listChanged: delivered, subscribe: delivered},
  }
}

/** A fresh, fully registered server for one request (stateless: nothing outlives the exchange). */
export function createCatalogMcpServer(options: CatalogMcpOptions): McpServer {
  const server = new McpServer(
    {name: options.name, version: options.version},
    {
      instructions: options.instructions,
      capabilities: capabilitiesFor(options.era),
      cacheHints: {
        'tools/list': SHARED_LIKE_THE_API,
        'prompts/list': SHARED_LIKE_THE_API,
        'resources/list': SHARED_LIKE_THE_API,
        'resources/templates/list': SHARED_LIKE_THE_API,
        'resources/read': SHARED_LIKE_THE_API,
      },
    },
  )
  for (const tool of catalogTools) tool.register(server, options.snapshot)
  for (const prompt of catalogPrompts) prompt.register(server)
  const read = (uri: URL) => {
    // By path, whatever host the client named (127.0.0.1, localhost or the public name).
    const path = uri.pathname.startsWith('/api/v1/') ? uri.pathname.slice('/api/v1/'.length) : ''
    const representation = options.snapshot().representation(path)
    if (!representation)
      throw new ResourceNotFoundError(
        uri.href,
        `No catalog document at ${uri.href}; list the resources or use search_catalog.`,
      )
    return {contents: [{uri: uri.href, mimeType: 'application/json', text: representation.body.toString('utf8')}]}
  }
  for (const resource of catalogResources(options.publicBaseUrl)) {
    const metadata = {title: resource.title, description: resource.description, mimeType: 'application/json'}
    const collection = resource.template
    if (!collection) {
      server.registerResource(resource.name, resource.uri, metadata, read)
      continue
    }
    if (collection === 'any') {
      // Registered after the collections' templates, so it only takes URIs naming another host.
      server.registerResource(resource.name, new ResourceTemplate(resource.uri, {list: undefined}), metadata, read)
      continue
    }
    const slugs = () => options.snapshot().catalog[collection].map((entry) => entry.value.slug)
    // Items are listed by the paged resources/list handler below, not by the template.
    const template = new ResourceTemplate(resource.uri, {
      list: undefined,
      complete: {
        slug: (prefix) =>
          slugs()
            .filter((slug) => slug.startsWith(prefix))
            .slice(0, 100),
      },
    })
    server.registerResource(resource.name, template, metadata, read)
  }
  // The SDK's resources/list answers every resource at once, one message as large as the catalog,
  // so this handler replaces it with the protocol's cursor pagination.
  const fixed = catalogResources(options.publicBaseUrl).filter((resource) => !resource.template)
  server.server.setRequestHandler('resources/list', (request) => {
    const page = resourcePage(options.snapshot(), fixed, request.params?.cursor)
    if (!page.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, page.reason)
    return {resources: page.resources, ...(page.nextCursor === undefined ? {} : {nextCursor: page.nextCursor})}
  })
  return server
}
