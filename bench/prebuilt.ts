// The baselines' bytes for bench:http: the origin's own snapshot, built by the same code from the
// same dataset, as pre-built responses a bare server writes with a fixed header list. Shared by
// raw node:http (bench/raw-ceiling.ts) and the Fastify peer (bench/fastify-peer.ts).
import {loadConfig, type Config} from '../server/config.ts'
import {createEmbeddedFileSource} from '../server/content/embedded-source.ts'
import {CACHE_CONTROL} from '../server/http/representation-response.ts'
import {COLLECTION_NAMES} from '../catalog/v1/links.ts'
import {searchCatalog} from '../server/snapshot/search.ts'
import {catalogSnapshotBuilder} from '../server/catalog-builder.ts'
import type {Snapshot} from '../server/snapshot/snapshot.ts'

export interface Prebuilt {
  etag: string
  body: Buffer
  /** Headers of the 200, Content-Length included, as a flat list and as an object. */
  headers: string[]
  headerObject: Record<string, string>
  /** Headers of the 304. */
  notModified: string[]
  notModifiedObject: Record<string, string>
}

export interface PrebuiltCatalog {
  config: Config
  snapshot: Snapshot
  /** By request path, then by coding (`identity` or `br`). */
  responses: Map<string, {identity: Prebuilt; br?: Prebuilt}>
}

export async function prebuiltCatalog(environment: NodeJS.ProcessEnv): Promise<PrebuiltCatalog> {
  const config = loadConfig(environment)
  const source = createEmbeddedFileSource(
    config.content.kind === 'embedded' ? config.content.datasetFile : 'data/catalog.ndjson',
  )
  const snapshot = await catalogSnapshotBuilder({source, config, clock: () => new Date()})(undefined, {kind: 'all'})
  const responses: PrebuiltCatalog['responses'] = new Map()
  for (const path of snapshot.paths) {
    const representation = snapshot.representation(path)
    if (!representation) continue
    const identityBody = Buffer.isBuffer(representation.body) ? representation.body : representation.body.whole
    // A bulk document past the one-buffer limit is not served by the baselines (the bench's catalog is small).
    if (!identityBody) continue
    const prebuilt = (body: Buffer, etag: string, coding?: string): Prebuilt => {
      const common = [
        'Content-Type',
        representation.contentType,
        'ETag',
        etag,
        'Last-Modified',
        representation.lastModifiedHeader,
        'Cache-Control',
        CACHE_CONTROL,
        'Vary',
        'Accept-Encoding',
      ]
      const headers = [
        ...common,
        'Content-Length',
        String(body.length),
        ...(coding ? ['Content-Encoding', coding] : []),
      ]
      return {
        etag,
        body,
        headers,
        headerObject: objectOf(headers),
        notModified: common,
        notModifiedObject: objectOf(common),
      }
    }
    const brotli = await representation.encode('br')
    responses.set(`/api/v1/${path}`, {
      identity: prebuilt(identityBody, representation.etag),
      ...(brotli ? {br: prebuilt(brotli.body, brotli.etag, 'br')} : {}),
    })
  }
  return {config, snapshot, responses}
}

function objectOf(list: readonly string[]): Record<string, string> {
  const object: Record<string, string> = {}
  for (let index = 0; index + 1 < list.length; index += 2) object[list[index] ?? ''] = list[index + 1] ?? ''
  return object
}

/** The variant a request gets: brotli when it accepts it and there is one. */
export function variantFor(found: {identity: Prebuilt; br?: Prebuilt}, acceptEncoding: string | undefined): Prebuilt {
  return found.br && acceptEncoding?.includes('br') ? found.br : found.identity
}

/**
 * What an MCP `tools/call` of `search_catalog` computes, without the MCP SDK, Express or the
 * Streamable HTTP transport: the same search over the same snapshot, the result shaped as the tool
 * returns it, in one JSON-RPC response. The baseline for the MCP case does this work per request;
 * answering pre-built bytes instead would measure nothing the origin could match.
 */
export function searchToolResponse(snapshot: Snapshot, requestBody: string): string {
  const call: unknown = JSON.parse(requestBody)
  const {id, params} = isObject(call) ? call : {id: null, params: undefined}
  const args = isObject(params) && isObject(params.arguments) ? params.arguments : {}
  const query = typeof args.query === 'string' ? args.query.trim() : ''
  const limit = typeof args.limit === 'number' ? args.limit : 10
  const answer = searchCatalog(snapshot, query, COLLECTION_NAMES, limit)
  // The peers serve the sample catalog, whose index is built at once.
  if (!answer.ready) throw new Error('the sample catalog is indexed at once')
  const result = {results: answer.hits, total: answer.total}
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: {content: [{type: 'text', text: JSON.stringify(result)}], structuredContent: result},
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
