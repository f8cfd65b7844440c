import {createServer} from 'node:http'
import {evaluateSync, parse} from 'groq-js'
import {z} from 'zod'
import type {SanityDocument} from '../server/content/ndjson.ts'
import {publishedViewOf} from './published-perspective.ts'

interface RecordedQuery {
  method: string
  path: string
  perspective: string | null
  projectIdHeader: string | undefined
  authorization: string | undefined
}

/**
 * A local stand-in for the Sanity query endpoint (`/v{apiVersion}/data/query/{dataset}`) as
 * @sanity/client calls it when `apiHost` points at a custom host: GET with `query` and `$param`
 * search parameters, or POST with a JSON body for long queries. It evaluates with groq-js and
 * honours the published perspective by hiding drafts and versions, as the Content Lake does.
 * `documents` is called on every query; while it returns the same array, the published view and its
 * id index are reused, so a benchmark at 100k documents measures the server, not the stand-in.
 */
export async function startSanityStandIn(documents: () => readonly SanityDocument[], options: {dataset: string}) {
  const recorded: RecordedQuery[] = []
  let failure: number | 'malformed' | undefined
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in')
    const match = /^\/v[\d-]+\/data\/query\/([^/]+)$/.exec(url.pathname)
    const perspective = url.searchParams.get('perspective')
    recorded.push({
      method: request.method ?? '',
      path: url.pathname,
      perspective,
      projectIdHeader: request.headers['x-sanity-project-id']?.toString(),
      authorization: request.headers.authorization,
    })
    const send = (status: number, body: unknown) => {
      response.writeHead(status, {'Content-Type': 'application/json'})
      response.end(JSON.stringify(body))
    }
    if (failure === 'malformed') return send(200, {ms: 0, query: '', result: {episodes: 'not a list'}})
    if (failure) return send(failure, {error: 'stand-in failure', statusCode: failure})
    if (!match || match[1] !== options.dataset)
      return send(404, {error: 'Not Found', message: 'unknown dataset or path'})
    const {query, params} = await queryRequestOf(request, url)
    const all = documents()
    const published = perspective === 'published' ? publishedViewOf(all) : undefined
    const byId = published?.byId ?? new Map(all.map((document) => [document._id, document]))
    const started = performance.now()
    const result = await evaluateSync(parse(query), {
      dataset: published?.documents ?? all,
      params,
      dereference: ({_ref}) => byId.get(_ref),
    }).get()
    send(200, {ms: Math.round(performance.now() - started), query, result})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return {
    apiHost: `http://127.0.0.1:${address.port}`,
    recorded,
    /** Indexes the current documents now, as the Content Lake has indexed a change before its webhook goes out. */
    index() {
      publishedViewOf(documents())
    },
    /** Makes every following request fail with this status or a malformed result (undefined restores normal answers). */
    failWith(next: number | 'malformed' | undefined) {
      failure = next
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const queryBodySchema = z.object({query: z.string(), params: z.record(z.string(), z.unknown()).default({})})

/**
 * The GROQ query and parameters of a query request as @sanity/client sends them: `query` and
 * `$name` search parameters, or a JSON body for a long query (POST).
 */
export async function queryRequestOf(
  request: {method?: string | undefined} & AsyncIterable<Buffer | string>,
  url: URL,
): Promise<{query: string; params: Record<string, unknown>}> {
  if (request.method !== 'POST') {
    const params: Record<string, unknown> = {}
    for (const [name, value] of url.searchParams) if (name.startsWith('$')) params[name.slice(1)] = JSON.parse(value)
    return {query: url.searchParams.get('query') ?? '', params}
  }
  return queryBodySchema.parse(JSON.parse(await bodyText(request)))
}

/** A request's whole body as UTF-8 text. */
export async function bodyText(request: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk))
  return Buffer.concat(chunks).toString('utf8')
}
