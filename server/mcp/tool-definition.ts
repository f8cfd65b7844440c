import {type McpServer, type CallToolResult} from '@modelcontextprotocol/server'
import {distance} from 'fastest-levenshtein'
import type {z} from 'zod'
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import type {CollectionName} from '../../catalog/v1/links.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'

// What an MCP tool is: a read-only definition (data, so the discovery documents list exactly what
// is registered) whose handler reads one snapshot and answers a result or a failure the agent can act on.

const READ_ONLY = {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false} as const

export interface ToolDefinition {
  name: string
  title: string
  description: string
  inputSchema: z.ZodObject
  /** Absent for the get_ tools: they return the API's own record, whose schema is in the OpenAPI document. */
  outputSchema?: z.ZodObject
  register(server: McpServer, snapshot: () => Snapshot): void
}

export function defineTool<Input extends z.ZodObject, Output extends z.ZodObject>(
  name: string,
  config: {title: string; description: string; inputSchema: Input; outputSchema?: Output},
  run: (input: z.infer<Input>, snapshot: Snapshot) => z.infer<Output> | ToolFailure,
): ToolDefinition {
  return {
    name,
    ...config,
    register(server, snapshot) {
      // Widened by assignment: the SDK types the callback from the schema, which it cannot do for a
      // generic one, so the handler parses again (cheap) to get its typed input.
      const inputSchema: z.ZodObject = config.inputSchema
      const outputSchema: z.ZodObject | undefined = config.outputSchema
      const annotations = {title: config.title, ...READ_ONLY}
      const described = {
        title: config.title,
        description: config.description,
        inputSchema,
        annotations,
        ...(outputSchema ? {outputSchema} : {}),
      }
      server.registerTool(name, described, (input): CallToolResult => {
        const result = run(config.inputSchema.parse(input), snapshot())
        if (result instanceof ToolFailure) return {isError: true, content: [{type: 'text', text: result.message}]}
        return {content: [{type: 'text', text: JSON.stringify(result)}], structuredContent: result}
      })
    },
  }
}

/** A failure the model can act on: returned as an `isError` result with text that says what to do. */
/** What a tool answers instead of a result: an error the agent reads and can act on. */
export class ToolFailure {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

/** "No such slug", with the closest slugs that do exist. */
export function notFound(
  collection: CollectionName,
  slug: string,
  entries: readonly CatalogEntry<{slug: string}>[],
): ToolFailure {
  const closest = entries
    .map((entry) => entry.value.slug)
    .map((candidate) => ({
      candidate,
      score: candidate.includes(slug) || slug.includes(candidate) ? 0 : distance(slug, candidate),
    }))
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map(({candidate}) => `"${candidate}"`)
  const hint = closest.length > 0 ? ` The closest slugs are ${closest.join(', ')}.` : ''
  return new ToolFailure(
    `No item in ${collection} has the slug "${slug}".${hint} Use list_${collection} or search_catalog to find slugs.`,
  )
}
