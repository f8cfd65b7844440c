import {McpServer, ResourceNotFoundError, ResourceTemplate, type CallToolResult} from '@modelcontextprotocol/server'
import {distance} from 'fastest-levenshtein'
import {z} from 'zod'
import {episodeSchema, meetupSchema, slugSchema, voiceSchema, type Episode, type Meetup, type PersonRef} from '../api/v1/contract.ts'
import {decodeCursor, encodeCursor} from '../api/v1/cursor.ts'
import {COLLECTION_NAMES, type CollectionName} from '../api/v1/links.ts'
import type {CatalogEntry} from '../api/v1/catalog.ts'
import {episodeOrder, meetupOrder, voiceOrder, type ListOrder} from '../api/v1/order.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {searchCatalog} from './search.ts'

// The MCP surface over the catalog: read-only tools with zod input and output schemas, and the
// API documents as resources. Every call reads the current snapshot once, so tools, resources and
// the HTTP API always answer from the same content. The definitions are data, so the discovery
// documents list exactly what is registered.

export const MCP_SERVER_NAME = 'podcast-catalog'
export const MCP_INSTRUCTIONS = [
  'A read-only catalog of a Hebrew tech podcast: episodes, internal meetup talks and speaker profiles ("voices").',
  'Find items with search_catalog (Hebrew or English), browse with list_episodes, list_meetups and list_voices, and read one with get_episode, get_meetup or get_voice.',
  'Content text is Hebrew; tags and roles are English. Cite items by their `url` (the canonical page), not their `api_url`.',
  'Audio, video, artwork and written content belong to the publisher; catalog metadata may be reused with attribution.',
].join(' ')

const READ_ONLY = {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false} as const
const MAX_LIST_LIMIT = 100

export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: z.ZodObject
  outputSchema: z.ZodObject
  register(server: McpServer, snapshot: () => Snapshot): void
}

function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  name: string,
  config: {title: string; description: string; inputSchema: Input; outputSchema: Output},
  run: (input: z.infer<Input>, snapshot: Snapshot) => z.infer<Output> | ToolFailure,
): ToolDefinition {
  return {
    name,
    ...config,
    register(server, snapshot) {
      // Widened by assignment: the SDK types the callback from the schema, which it cannot do for a
      // generic one, so the handler parses again (cheap) to get its typed input.
      const inputSchema: z.ZodObject = config.inputSchema
      const outputSchema: z.ZodObject = config.outputSchema
      const annotations = {title: config.title, ...READ_ONLY}
      server.registerTool(name, {title: config.title, description: config.description, inputSchema, outputSchema, annotations}, async (input): Promise<CallToolResult> => {
        const result = run(config.inputSchema.parse(input), snapshot())
        if (result instanceof ToolFailure) return {isError: true, content: [{type: 'text', text: result.message}]}
        return {content: [{type: 'text', text: JSON.stringify(result)}], structuredContent: result}
      })
    },
  }
}

/** A failure the model can act on: returned as an `isError` result with text that says what to do. */
class ToolFailure {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

const listInput = z.object({
  tag: z.string().max(64).optional().describe('Only items with this English tag, such as "react" or "security".'),
  speaker: slugSchema.optional().describe('Only items with this speaker (a voice slug) among their guests or speakers.'),
  limit: z.int().min(1).max(MAX_LIST_LIMIT).default(20).describe(`Items per page, 1 to ${MAX_LIST_LIMIT}.`),
  cursor: z.string().max(1024).optional().describe('The next_cursor of the previous page.'),
})

const pageOf = <Item extends z.ZodType>(item: Item) =>
  z.object({
    items: z.array(item),
    total: z.int().describe('Items matching the filters, across all pages.'),
    next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null at the end.'),
  })

const slugInput = z.object({slug: z.string().max(256).describe('The item slug, as in list results or api_url.')})

const appearanceSchema = z.object({
  collection: z.enum(['episodes', 'meetups']),
  slug: z.string(),
  title: z.string(),
  published_date: z.string(),
  url: z.string(),
})

const searchHitSchema = z.object({
  collection: z.enum(COLLECTION_NAMES),
  slug: z.string(),
  title: z.string().describe('The title, or the name for a voice.'),
  url: z.string().describe('Canonical page: cite this.'),
  api_url: z.string(),
  score: z.number(),
})

function page<Item>(entries: readonly CatalogEntry<Item>[], order: ListOrder<Item>, input: z.infer<typeof listInput>, keep: (item: Item) => boolean) {
  const matching = entries.map((entry) => entry.value).filter(keep)
  let start = 0
  if (input.cursor) {
    const decoded = decodeCursor(input.cursor)
    if (!decoded.ok) return new ToolFailure(`${decoded.reason}. Omit cursor to start from the first page.`)
    const after = decoded.key
    start = matching.findIndex((item) => order.compare(order.key(item), after) > 0)
    if (start === -1) start = matching.length
  }
  const items = matching.slice(start, start + input.limit)
  const last = items.at(-1)
  const more = start + input.limit < matching.length
  return {items, total: matching.length, next_cursor: more && last !== undefined ? encodeCursor(order.key(last)) : null}
}

const hasTag = (tag: string | undefined, tags: readonly string[]) => tag === undefined || tags.includes(tag.toLowerCase())
const hasPerson = (slug: string | undefined, people: readonly PersonRef[]) => slug === undefined || people.some((person) => person.slug === slug)

/** "No such slug", with the closest slugs that do exist. */
function notFound(collection: CollectionName, slug: string, entries: readonly CatalogEntry<{slug: string}>[]): ToolFailure {
  const closest = entries
    .map((entry) => entry.value.slug)
    .map((candidate) => ({candidate, score: candidate.includes(slug) || slug.includes(candidate) ? 0 : distance(slug, candidate)}))
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map(({candidate}) => `"${candidate}"`)
  const hint = closest.length > 0 ? ` The closest slugs are ${closest.join(', ')}.` : ''
  return new ToolFailure(`No item in ${collection} has the slug "${slug}".${hint} Use list_${collection} or search_catalog to find slugs.`)
}

function find<Item extends {slug: string}>(collection: CollectionName, entries: readonly CatalogEntry<Item>[], slug: string): Item | ToolFailure {
  return entries.find((entry) => entry.value.slug === slug)?.value ?? notFound(collection, slug, entries)
}

export const catalogTools: readonly ToolDefinition[] = [
  defineTool(
    'list_episodes',
    {title: 'List episodes', description: 'Podcast episodes, newest first, optionally filtered by tag or by speaker. Text fields are Hebrew.', inputSchema: listInput, outputSchema: pageOf(episodeSchema)},
    (input, snapshot) => page(snapshot.catalog.episodes, episodeOrder, input, (episode: Episode) => hasTag(input.tag, episode.tags) && hasPerson(input.speaker, episode.guests)),
  ),
  defineTool(
    'get_episode',
    {title: 'Get an episode', description: 'One episode by slug: Hebrew title, description, takeaways and FAQ, guests, audio and video links.', inputSchema: slugInput, outputSchema: episodeSchema},
    (input, snapshot) => find('episodes', snapshot.catalog.episodes, input.slug),
  ),
  defineTool(
    'list_meetups',
    {title: 'List meetup talks', description: 'Internal meetup talks, newest first, optionally filtered by tag or by speaker.', inputSchema: listInput, outputSchema: pageOf(meetupSchema)},
    (input, snapshot) => page(snapshot.catalog.meetups, meetupOrder, input, (meetup: Meetup) => hasTag(input.tag, meetup.tags) && hasPerson(input.speaker, meetup.speakers)),
  ),
  defineTool(
    'get_meetup',
    {title: 'Get a meetup talk', description: 'One meetup talk by slug, with its abstract, speakers and recording.', inputSchema: slugInput, outputSchema: meetupSchema},
    (input, snapshot) => find('meetups', snapshot.catalog.meetups, input.slug),
  ),
  defineTool(
    'list_voices',
    {
      title: 'List speakers',
      description: 'Speaker profiles in Hebrew name order; `tag` filters by technology in their tech stack. `speaker` does not apply here.',
      inputSchema: listInput,
      outputSchema: pageOf(voiceSchema),
    },
    (input, snapshot) => page(snapshot.catalog.voices, voiceOrder, input, (voice) => hasTag(input.tag, voice.tech_stack)),
  ),
  defineTool(
    'get_voice',
    {
      title: 'Get a speaker',
      description: 'One speaker profile by slug (English role, Hebrew bio), with the episodes and talks they appear in.',
      inputSchema: slugInput,
      outputSchema: voiceSchema.extend({appearances: z.array(appearanceSchema)}),
    },
    (input, snapshot) => {
      const voice = find('voices', snapshot.catalog.voices, input.slug)
      if (voice instanceof ToolFailure) return voice
      const {episodes, meetups} = snapshot.catalog
      const appearances = [
        ...episodes.filter(({value}) => hasPerson(voice.slug, value.guests)).map(({value}) => ({collection: 'episodes' as const, ...pick(value)})),
        ...meetups.filter(({value}) => hasPerson(voice.slug, value.speakers)).map(({value}) => ({collection: 'meetups' as const, ...pick(value)})),
      ]
      return {...voice, appearances}
    },
  ),
  defineTool(
    'search_catalog',
    {
      title: 'Search the catalog',
      description:
        'Ranked search across episode and talk titles, descriptions, abstracts, takeaways, FAQ, tags, and speaker names and bios. Hebrew-aware: niqqud and final letters are folded and prefixes such as ה, ו, ב, ל, מ, ש are tolerated.',
      inputSchema: z.object({
        query: z.string().trim().min(1).max(200).describe('Words to look for, in Hebrew or English.'),
        collections: z.array(z.enum(COLLECTION_NAMES)).min(1).optional().describe('Where to look; all three by default.'),
        limit: z.int().min(1).max(50).default(10),
      }),
      outputSchema: z.object({results: z.array(searchHitSchema), total: z.int()}),
    },
    (input, snapshot) => {
      const hits = searchCatalog(snapshot, input.query, input.collections ?? COLLECTION_NAMES)
      return {results: hits.slice(0, input.limit), total: hits.length}
    },
  ),
]

function pick(item: {slug: string; title: string; published_date: string; url: string}) {
  return {slug: item.slug, title: item.title, published_date: item.published_date, url: item.url}
}

export interface ResourceDefinition {
  name: string
  title: string
  description: string
  /** A fixed URI, or a URI template with `{slug}`. */
  uri: string
  /** For a URI template: the collection whose items it addresses. */
  template: false | CollectionName
}

/** Resources are the API's own documents, addressed by their API URLs, with the served bytes. */
export function catalogResources(publicBaseUrl: string): ResourceDefinition[] {
  const api = (path: string) => `${publicBaseUrl}/api/v1/${path}`
  return [
    {name: 'service-index', title: 'Service index', description: 'What the API is and where its endpoints are.', uri: api('index.json'), template: false},
    {name: 'everything', title: 'The whole catalog', description: 'Episodes, meetups and voices in one document.', uri: api('all.json'), template: false},
    ...COLLECTION_NAMES.map((name): ResourceDefinition => ({name, title: `All ${name}`, description: `The ${name} list (first page).`, uri: api(`${name}.json`), template: false})),
    ...COLLECTION_NAMES.map((name): ResourceDefinition => ({
      name: `${name}-item`,
      title: `One of ${name}`,
      description: `One item of ${name} by slug; the slug completes.`,
      uri: api(`${name}/{slug}.json`),
      template: name,
    })),
  ]
}

export interface CatalogMcpOptions {
  snapshot: () => Snapshot
  publicBaseUrl: string
  name: string
  version: string
  instructions: string
}

/** A fresh, fully registered server for one request (stateless: nothing outlives the exchange). */
export function createCatalogMcpServer(options: CatalogMcpOptions): McpServer {
  const server = new McpServer({name: options.name, version: options.version}, {instructions: options.instructions})
  for (const tool of catalogTools) tool.register(server, options.snapshot)
  const read = (uri: URL) => {
    const path = uri.href.startsWith(`${options.publicBaseUrl}/api/v1/`) ? uri.href.slice(`${options.publicBaseUrl}/api/v1/`.length) : ''
    const representation = options.snapshot().representation(path)
    if (!representation) throw new ResourceNotFoundError(uri.href, `No catalog document at ${uri.href}; list the resources or use search_catalog.`)
    return {contents: [{uri: uri.href, mimeType: 'application/json', text: representation.body.toString('utf8')}]}
  }
  for (const resource of catalogResources(options.publicBaseUrl)) {
    const metadata = {title: resource.title, description: resource.description, mimeType: 'application/json'}
    const collection = resource.template
    if (!collection) {
      server.registerResource(resource.name, resource.uri, metadata, read)
      continue
    }
    const slugs = () => options.snapshot().catalog[collection].map((entry) => entry.value.slug)
    const template = new ResourceTemplate(resource.uri, {
      list: () => ({
        resources: options.snapshot().catalog[collection].map(({value}) => ({
          uri: value.api_url,
          name: value.slug,
          title: 'title' in value ? value.title : value.name,
          mimeType: 'application/json',
        })),
      }),
      complete: {slug: (prefix) => slugs().filter((slug) => slug.startsWith(prefix)).slice(0, 100)},
    })
    server.registerResource(resource.name, template, metadata, read)
  }
  return server
}
