import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {createSecureServer, type Http2ServerRequest, type Http2ServerResponse} from 'node:http2'
import {tmpdir} from 'node:os'
import {extname, join, normalize} from 'node:path'
import {evaluateSync, parse} from 'groq-js'
import {z} from 'zod'
import {isPublishedId} from './published-perspective.ts'
import type {SanityDocument} from '../server/content/ndjson.ts'
import {errorMessage} from '../server/errors.ts'
import {
  actionSchema,
  createLakeDataset,
  mutationSchema,
  TransactionError,
  type MutationEvent,
} from './content-lake-dataset.ts'
import {fileAssetOf} from './content-lake-assets.ts'
import {createWebhookSender, type WebhookSettings} from './content-lake-webhook.ts'
import {ensureDebianProgram} from './debian.ts'
import {bodyText, queryRequestOf} from './sanity-stand-in.ts'

/** The host the built Studio is served from. */
export const STUDIO_HOST = 'studio.test'

const PLACEHOLDER_IMAGE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#d5d9e0"/></svg>'
const actionsRequest = z.object({actions: z.array(actionSchema), transactionId: z.string().optional()})
const mutateRequest = z.object({mutations: z.array(mutationSchema), transactionId: z.string().optional()})
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
}

/**
 * A local stand-in for the part of Sanity a built Studio talks to, over HTTP/2 with a throwaway
 * certificate (the Studio keeps about nine event streams open, more than HTTP/1.1's six per host):
 * the logged-in user (an administrator), the project and its grants, and a writable dataset
 * (content-lake-dataset.ts): `data/query` (groq-js, with the raw, published and drafts
 * perspectives), `data/doc`, `data/actions` and `data/mutate` (each request one transaction), and
 * `data/listen` (server-sent mutation events for the documents a listener's query matches), and file
 * uploads (`assets/files`, content-lake-assets.ts). After
 * `sendWebhooks`, each published change is delivered as Sanity's GROQ-powered webhooks deliver it. It
 * also serves the built Studio at https://studio.test/. Chromium reaches it through `hostResolverRules`.
 */
export async function startContentLakeStandIn(options: {
  studioDirectory: string
  projectId: string
  documents: readonly SanityDocument[]
}) {
  const certificates = mkdtempSync(join(tmpdir(), 'lake-certificate-'))
  execFileSync(
    ensureDebianProgram('/usr/bin/openssl', ['openssl']),
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=stand-in',
      '-keyout',
      join(certificates, 'key.pem'),
      '-out',
      join(certificates, 'cert.pem'),
    ],
    {stdio: 'ignore'},
  )
  const key = readFileSync(join(certificates, 'key.pem'))
  const cert = readFileSync(join(certificates, 'cert.pem'))
  rmSync(certificates, {recursive: true, force: true})

  const dataset = createLakeDataset(options.documents, {identity: 'editor'})
  let webhook: ReturnType<typeof createWebhookSender> | undefined
  dataset.subscribe((committed) => webhook?.send(committed))
  const unanswered = new Set<string>()
  const refused: string[] = []
  const server = createSecureServer({key, cert, allowHTTP1: true}, (request, response) => {
    const host = request.headers[':authority'] ?? request.headers.host ?? ''
    const url = new URL(request.url, `https://${host}`)
    if (host === STUDIO_HOST) return void serveStudio(url.pathname, response)
    // The sample's images were never uploaded anywhere: every one is drawn as a grey square.
    if (host === 'cdn.sanity.io')
      return void response
        .writeHead(200, {'content-type': 'image/svg+xml', 'access-control-allow-origin': '*'})
        .end(PLACEHOLDER_IMAGE)
    const cors = {
      'access-control-allow-origin': request.headers.origin ?? '*',
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '*',
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    }
    if (request.method === 'OPTIONS') return void response.writeHead(204, cors).end()
    answer(request, url, cors, response).catch((error: unknown) =>
      sendJson(response, cors, 500, {error: String(error)}),
    )
  })

  const serveStudio = async (path: string, response: Http2ServerResponse) => {
    const file = normalize(join(options.studioDirectory, path))
    const body =
      file.startsWith(options.studioDirectory) && extname(file) !== ''
        ? await readFile(file).catch(() => undefined)
        : undefined
    // Any other path is a Studio route: the single-page app's index.
    if (!body)
      return void response
        .writeHead(200, {'content-type': 'text/html; charset=utf-8'})
        .end(await readFile(join(options.studioDirectory, 'index.html')))
    response.writeHead(200, {'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream'}).end(body)
  }

  const answer = async (
    request: Http2ServerRequest,
    url: URL,
    cors: Record<string, string>,
    response: Http2ServerResponse,
  ) => {
    const path = url.pathname.replace(/^\/v[^/]+/, '')
    const send = (body: unknown) => sendJson(response, cors, 200, body)
    if (path === '/users/me') {
      send({
        id: 'editor',
        name: 'עורכת',
        email: 'editor@example.com',
        role: 'administrator',
        roles: [{name: 'administrator', title: 'Administrator'}],
        provider: 'sanity',
      })
      return
    }
    if (/^\/projects\/[^/]+\/grants$/.test(path)) {
      send({
        'sanity.document.filter.mode': [
          {grants: [{name: 'mode', params: {mode: 'publish', history: true}}], config: {filter: '_id in path("**")'}},
        ],
      })
      return
    }
    if (/^\/projects\/[^/]+$/.test(path)) {
      send({
        id: options.projectId,
        displayName: 'Code Talks',
        studioHost: null,
        isBlocked: false,
        isDisabled: false,
        metadata: {},
        members: [],
        features: [],
      })
      return
    }
    if (/^\/projects\/[^/]+\/datasets$/.test(path)) {
      send([{name: 'production', aclMode: 'public'}])
      return
    }
    // The dataset grants of an administrator: the Studio allows what they permit.
    if (/^\/projects\/[^/]+\/datasets\/[^/]+\/acl$/.test(path)) {
      send([{filter: '_id in path("**")', permissions: ['read', 'create', 'history', 'update']}])
      return
    }
    if (
      /^\/projects\/[^/]+\/user-applications$/.test(path) ||
      path === '/features' ||
      path === '/journey/announcements'
    ) {
      send([])
      return
    }
    if (path === '/ping') {
      send('PONG')
      return
    }
    if (path.startsWith('/schedules/')) {
      send({schedules: []})
      return
    }
    const keys = /^\/users\/me\/keyvalue\/(.+)$/.exec(path)?.[1]
    if (keys) {
      send(keys.split(',').map((key) => ({key, value: null})))
      return
    }
    if (path.startsWith('/data/listen/')) return listen(request, url, cors, response)
    if (path.startsWith('/data/query/')) {
      const {query: asked, params} = await queryRequestOf(request, url)
      // The Studio's list search uses text::query(), which groq-js lacks: "*" (no search) matches
      // everything, and a search term is matched as GROQ's `match` would.
      const query = asked.replaceAll(
        'match text::query($__query)',
        params.__query === '*' ? 'match "*" || true' : 'match $__query',
      )
      const visible = perspectiveOf(dataset.all(), url.searchParams.get('perspective') ?? 'raw')
      const byId = new Map(visible.map((document) => [document._id, document]))
      const result: unknown = await evaluateSync(parse(query, {params}), {
        dataset: visible,
        params,
        dereference: ({_ref}) => byId.get(_ref),
      }).get()
      send({ms: 1, query, result, syncTags: []})
      return
    }
    const ids = /^\/data\/doc\/[^/]+\/(.+)$/.exec(path)?.[1]?.split(',').map(decodeURIComponent)
    if (ids) {
      send({
        documents: ids.flatMap((id) => dataset.get(id) ?? []),
        omitted: ids.filter((id) => !dataset.get(id)).map((id) => ({id, reason: 'existence'})),
      })
      return
    }
    // An uploaded file becomes its asset document, written to the dataset as the Content Lake does.
    const uploadDataset = /^\/assets\/files\/([^/]+)$/.exec(path)?.[1]
    if (request.method === 'POST' && uploadDataset) {
      const chunks: Buffer[] = []
      for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
      const document = fileAssetOf(Buffer.concat(chunks), {
        projectId: options.projectId,
        dataset: uploadDataset,
        filename: url.searchParams.get('filename'),
        mimeType: request.headers['content-type'] ?? 'application/octet-stream',
      })
      dataset.mutate(crypto.randomUUID(), [{createOrReplace: document}])
      send({document})
      return
    }
    if (request.method === 'POST' && (path.startsWith('/data/actions/') || path.startsWith('/data/mutate/'))) {
      try {
        const body: unknown = JSON.parse(await bodyText(request))
        if (path.startsWith('/data/actions/')) {
          const {actions, transactionId = crypto.randomUUID()} = actionsRequest.parse(body)
          send({transactionId: dataset.actions(transactionId, actions).transactionId})
          return
        }
        const {mutations, transactionId = crypto.randomUUID()} = mutateRequest.parse(body)
        const {committed, ids: touched} = dataset.mutate(transactionId, mutations)
        const operationOf = (id: string) => {
          const change = committed.changes.find((candidate) => candidate.id === id)
          return change?.after === null ? 'delete' : change?.before === null ? 'create' : 'update'
        }
        send({transactionId, results: touched.map((id) => ({id, operation: operationOf(id)}))})
        return
      } catch (error) {
        const status = error instanceof TransactionError ? error.status : 400
        refused.push(`${path} ${status}: ${errorMessage(error)}`)
        sendJson(response, cors, status, {
          error: {description: errorMessage(error), type: 'stand-in'},
          statusCode: status,
        })
        return
      }
    }
    // Usage limits, onboarding, help, the presence socket: the Studio works without them.
    unanswered.add(path)
    sendJson(response, cors, 404, {error: 'Not Found', statusCode: 404})
  }

  /** An event stream of the dataset's changes to the documents the listener's query matches (before or after). */
  const listen = async (
    request: Http2ServerRequest,
    url: URL,
    cors: Record<string, string>,
    response: Http2ServerResponse,
  ) => {
    const {query, params} = await queryRequestOf(request, url)
    const selection = parse(query, {params})
    const matches = async (document: SanityDocument | null) => {
      if (document === null) return false
      const result: unknown = await evaluateSync(selection, {dataset: [document], params}).get()
      return Array.isArray(result) && result.length > 0
    }
    const includeResult = url.searchParams.get('includeResult') !== 'false'
    const includeMutations = url.searchParams.get('includeMutations') !== 'false'
    response.writeHead(200, {...cors, 'content-type': 'text/event-stream', 'cache-control': 'no-cache'})
    response.write('event: welcome\ndata: {"listenerName":"stand-in"}\n\n')
    let written = Promise.resolve()
    const unsubscribe = dataset.subscribe((committed, events) => {
      written = written.then(async () => {
        const seen: {event: MutationEvent; result: SanityDocument | undefined}[] = []
        for (const event of events) {
          const change = committed.changes.find((candidate) => candidate.id === event.documentId)
          if ((await matches(change?.before ?? null)) || (await matches(change?.after ?? null)))
            seen.push({event, result: change?.after ?? undefined})
        }
        // A listener counts only the events it receives: the Studio waits for all of a transaction's.
        seen.forEach(({event, result}, index) => {
          const {mutations, ...rest} = {
            ...event,
            transactionTotalEvents: seen.length,
            transactionCurrentEvent: index + 1,
          }
          const data = {...rest, ...(includeMutations ? {mutations} : {}), ...(includeResult && result ? {result} : {})}
          response.write(`event: mutation\nid: ${event.eventId}\ndata: ${JSON.stringify(data)}\n\n`)
        })
      })
    })
    response.on('close', unsubscribe)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  const target = `127.0.0.1:${address.port}`
  return {
    /** For Chromium's --host-resolver-rules: the Studio's hosts here, every other host unresolvable. */
    hostResolverRules: [
      ...[STUDIO_HOST, `${options.projectId}.api.sanity.io`, 'api.sanity.io', 'cdn.sanity.io'].map(
        (host) => `MAP ${host} ${target}`,
      ),
      'MAP * ~NOTFOUND',
    ].join(', '),
    /** The dataset as the Studio has edited it. */
    dataset,
    /** Delivers every later published change to a webhook; returns the deliveries as they are made. */
    sendWebhooks(settings: WebhookSettings) {
      webhook = createWebhookSender(settings, {projectId: options.projectId, dataset: 'production'})
      return webhook.deliveries
    },
    /** API paths the stand-in did not answer. */
    unanswered,
    /** Writes the stand-in refused, with the status and why. */
    refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export type ContentLakeStandIn = Awaited<ReturnType<typeof startContentLakeStandIn>>
/** The dataset as a perspective shows it: `published` hides drafts and versions; `drafts` lays each draft over its published document. */
function perspectiveOf(all: readonly SanityDocument[], perspective: string): SanityDocument[] {
  const published = all.filter((document) => isPublishedId(document._id))
  if (perspective === 'published') return published
  if (perspective !== 'drafts' && perspective !== 'previewDrafts') return [...all]
  const overlaid = new Map(published.map((document) => [document._id, document]))
  for (const draft of all.filter((document) => document._id.startsWith('drafts.'))) {
    const id = draft._id.slice('drafts.'.length)
    overlaid.set(id, {...draft, _id: id, _originalId: draft._id})
  }
  return [...overlaid.values()]
}

function sendJson(response: Http2ServerResponse, cors: Record<string, string>, status: number, body: unknown): void {
  response.writeHead(status, {...cors, 'content-type': 'application/json; charset=utf-8'})
  response.end(JSON.stringify(body))
}
