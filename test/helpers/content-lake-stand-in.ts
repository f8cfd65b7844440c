import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {createSecureServer, type Http2ServerRequest, type Http2ServerResponse} from 'node:http2'
import {tmpdir} from 'node:os'
import {extname, join, normalize} from 'node:path'
import {evaluateSync, parse} from 'groq-js'
import {isPublished} from '../../server/content/document-set.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {ensureDebianProgram} from './debian.ts'
import {queryRequestOf} from './sanity-stand-in.ts'

/** The host the built Studio is served from. */
export const STUDIO_HOST = 'studio.test'

const PLACEHOLDER_IMAGE = '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120"><rect width="120" height="120" fill="#d5d9e0"/></svg>'
const CONTENT_TYPES: Record<string, string> = {'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.ico': 'image/x-icon', '.svg': 'image/svg+xml'}

/**
 * A local stand-in for what a built Studio reads from Sanity, over HTTP/2 with a throwaway
 * certificate (the Studio keeps about nine event streams open, more than HTTP/1.1's six per host):
 * the logged-in user (an administrator), the project and its grants, and the dataset through
 * `data/query` (groq-js, with the raw, published and drafts perspectives), `data/doc` and
 * `data/listen` (a welcome event; nothing is written yet). It also serves the built Studio at
 * https://studio.test/. Chromium reaches it through `hostResolverRules`.
 */
export async function startContentLakeStandIn(options: {studioDirectory: string; projectId: string; documents: readonly SanityDocument[]}) {
  const certificates = mkdtempSync(join(tmpdir(), 'lake-certificate-'))
  execFileSync(ensureDebianProgram('/usr/bin/openssl', ['openssl']), ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=stand-in', '-keyout', join(certificates, 'key.pem'), '-out', join(certificates, 'cert.pem')], {stdio: 'ignore'})
  const key = readFileSync(join(certificates, 'key.pem'))
  const cert = readFileSync(join(certificates, 'cert.pem'))
  rmSync(certificates, {recursive: true, force: true})

  const documents = new Map(options.documents.map((document) => [document._id, document]))
  const unanswered = new Set<string>()
  const server = createSecureServer({key, cert, allowHTTP1: true}, (request, response) => {
    const host = request.headers[':authority'] ?? request.headers.host ?? ''
    const url = new URL(request.url, `https://${host}`)
    if (host === STUDIO_HOST) return void serveStudio(url.pathname, response)
    // The sample's images were never uploaded anywhere: every one is drawn as a grey square.
    if (host === 'cdn.sanity.io') return void response.writeHead(200, {'content-type': 'image/svg+xml', 'access-control-allow-origin': '*'}).end(PLACEHOLDER_IMAGE)
    const cors = {
      'access-control-allow-origin': request.headers.origin ?? '*',
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': request.headers['access-control-request-headers'] ?? '*',
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
    }
    if (request.method === 'OPTIONS') return void response.writeHead(204, cors).end()
    answer(request, url, cors, response).catch((error: unknown) => sendJson(response, cors, 500, {error: String(error)}))
  })

  const serveStudio = async (path: string, response: Http2ServerResponse) => {
    const file = normalize(join(options.studioDirectory, path))
    const body = file.startsWith(options.studioDirectory) && extname(file) !== '' ? await readFile(file).catch(() => undefined) : undefined
    // Any other path is a Studio route: the single-page app's index.
    if (!body) return void response.writeHead(200, {'content-type': 'text/html; charset=utf-8'}).end(await readFile(join(options.studioDirectory, 'index.html')))
    response.writeHead(200, {'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream'}).end(body)
  }

  const answer = async (request: Http2ServerRequest, url: URL, cors: Record<string, string>, response: Http2ServerResponse) => {
    const path = url.pathname.replace(/^\/v[^/]+/, '')
    const send = (body: unknown) => sendJson(response, cors, 200, body)
    if (path === '/users/me') return send({id: 'editor', name: 'עורכת', email: 'editor@example.com', role: 'administrator', roles: [{name: 'administrator', title: 'Administrator'}], provider: 'sanity'})
    if (/^\/projects\/[^/]+\/grants$/.test(path)) return send({'sanity.document.filter.mode': [{grants: [{name: 'mode', params: {mode: 'publish', history: true}}], config: {filter: '_id in path("**")'}}]})
    if (/^\/projects\/[^/]+$/.test(path)) return send({id: options.projectId, displayName: 'Code Talks', studioHost: null, isBlocked: false, isDisabled: false, metadata: {}, members: [], features: []})
    if (/^\/projects\/[^/]+\/datasets$/.test(path)) return send([{name: 'production', aclMode: 'public'}])
    if (/^\/projects\/[^/]+\/(user-applications|datasets\/[^/]+\/acl)$/.test(path) || path === '/features' || path === '/journey/announcements') return send([])
    if (path === '/ping') return send('PONG')
    if (path.startsWith('/schedules/')) return send({schedules: []})
    const keys = /^\/users\/me\/keyvalue\/(.+)$/.exec(path)?.[1]
    if (keys) return send(keys.split(',').map((key) => ({key, value: null})))
    if (path.startsWith('/data/listen/')) {
      response.writeHead(200, {...cors, 'content-type': 'text/event-stream', 'cache-control': 'no-cache'})
      return void response.write('event: welcome\ndata: {"listenerName":"stand-in"}\n\n')
    }
    if (path.startsWith('/data/query/')) {
      const {query: asked, params} = await queryRequestOf(request, url)
      // The Studio's list search uses text::query(), which groq-js lacks: "*" (no search) matches
      // everything, and a search term is matched as GROQ's `match` would.
      const query = asked.replaceAll('match text::query($__query)', params.__query === '*' ? 'match "*" || true' : 'match $__query')
      const dataset = perspectiveOf([...documents.values()], url.searchParams.get('perspective') ?? 'raw')
      const byId = new Map(dataset.map((document) => [document._id, document]))
      const result: unknown = await evaluateSync(parse(query, {params}), {dataset, params, dereference: ({_ref}) => byId.get(_ref)}).get()
      return send({ms: 1, query, result, syncTags: []})
    }
    const ids = /^\/data\/doc\/[^/]+\/(.+)$/.exec(path)?.[1]?.split(',').map(decodeURIComponent)
    if (ids) return send({documents: ids.flatMap((id) => documents.get(id) ?? []), omitted: ids.filter((id) => !documents.has(id)).map((id) => ({id, reason: 'existence'}))})
    // Usage limits, onboarding, help, the presence socket: the Studio works without them.
    unanswered.add(path)
    sendJson(response, cors, 404, {error: 'Not Found', statusCode: 404})
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  const target = `127.0.0.1:${address.port}`
  return {
    /** For Chromium's --host-resolver-rules: the Studio's hosts here, every other host unresolvable. */
    hostResolverRules: [...[STUDIO_HOST, `${options.projectId}.api.sanity.io`, 'api.sanity.io', 'cdn.sanity.io'].map((host) => `MAP ${host} ${target}`), 'MAP * ~NOTFOUND'].join(', '),
    /** API paths the stand-in did not answer. */
    unanswered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** The dataset as a perspective shows it: `published` hides drafts and versions; `drafts` lays each draft over its published document. */
function perspectiveOf(all: readonly SanityDocument[], perspective: string): SanityDocument[] {
  const published = all.filter((document) => isPublished(document._id))
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
