// `npm run export` served by a real nginx (Debian's, with the brotli_static module) answers as
// the origin does: same status, bytes, content type, codings and problem bodies. The origin it is
// compared with builds the export's site documents (no MCP, no `limit` examples), as export.ts does.
import {execFile, spawn, type ChildProcess} from 'node:child_process'
import {Agent} from 'node:http'
import {chmod, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {connect, createServer, type Server} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {growDataset} from '../../support/grow-dataset.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {staticFiles, type StaticFile} from '../../server/export/static-files.ts'
import {ensureDebianProgram} from '../../support/debian.ts'
import {freePort} from '../../support/free-port.ts'
import {eventually} from '../../support/eventually.ts'
import {rawRequest, type RawResponse} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let directory: string
let origin: TestServer
let nginx: ChildProcess
let nginxUrl: string
let files: StaticFile[]
let socketFile: Server | undefined
const agent = new Agent({keepAlive: true, maxSockets: 8})

beforeAll(async () => {
  const program = ensureDebianProgram('/usr/sbin/nginx', ['nginx', 'libnginx-mod-http-brotli-static'])
  ensureDebianProgram('/usr/lib/nginx/modules/ngx_http_brotli_static_module.so', ['libnginx-mod-http-brotli-static'])
  directory = await mkdtemp(join(tmpdir(), 'catalog-export-'))
  await chmod(directory, 0o755) // nginx's workers run as another user when the tests run as root
  // Enough episodes for a second page, so cursor pages are exported and served too.
  const dataset = join(directory, 'catalog.ndjson')
  const grown = growDataset(parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET), 400)
  await writeFile(dataset, grown.map((document) => JSON.stringify(document)).join('\n'))
  origin = await startStaticOrigin(dataset)
  await origin.store.current().warm()
  files = staticFiles(origin.store.current())

  const port = await freePort()
  const out = join(directory, 'export')
  await promisify(execFile)(process.execPath, ['server/export.ts', '--out', out, '--listen', `127.0.0.1:${port}`], {
    env: {...process.env, PUBLIC_BASE_URL: 'http://api.test', DATASET_FILE: dataset},
  })
  // A damaged export: a "file" nginx finds but cannot open (a socket), so it answers 500.
  const damaged = createServer()
  await new Promise<void>((resolve) => damaged.listen(join(out, 'site', 'api', 'v1', 'damaged.json'), resolve))
  socketFile = damaged
  nginx = spawn(program, ['-p', out, '-c', join(out, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  nginxUrl = `http://127.0.0.1:${port}`
  await eventually(async () => expect((await rawRequest(`${nginxUrl}/api/v1/index.json`)).status).toBe(200))
}, 120_000)

afterAll(async () => {
  agent.destroy()
  nginx?.kill()
  socketFile?.close()
  await origin?.close()
  await rm(directory, {recursive: true, force: true})
})

/** What `npm start` starts on a loopback port, serving the site documents `npm run export` writes. */
const startStaticOrigin = (dataset: string) =>
  startTestServer({environment: {DATASET_FILE: dataset}, staticExport: true})

const both = (path: string, options: {method?: string; headers?: Record<string, string>} = {}) =>
  Promise.all([
    rawRequest(`${origin.baseUrl}${path}`, {...options, agent}),
    rawRequest(`${nginxUrl}${path}`, {...options, agent}),
  ])

const SAME_HEADERS = [
  'content-type',
  'content-encoding',
  'content-length',
  'last-modified',
  'cache-control',
  'vary',
  'access-control-allow-origin',
  'x-content-type-options',
  'link',
  'allow',
]

function expectSame(path: string, fromOrigin: RawResponse, fromNginx: RawResponse) {
  expect(fromNginx.status, path).toBe(fromOrigin.status)
  for (const name of SAME_HEADERS) expect(fromNginx.headers[name], `${path} ${name}`).toEqual(fromOrigin.headers[name])
  expect(fromNginx.body.equals(fromOrigin.body), `${path} body`).toBe(true)
}

describe('every exported representation', () => {
  it('covers the API, the sandbox, later pages and the site documents', () => {
    const urls = files.map((file) => file.url)
    expect(urls).toEqual(
      expect.arrayContaining([
        '/api/v1/all.json',
        '/api/v1/sandbox/all.json',
        '/api/v1/episodes/ep-22-cache-invalidation/chapters.json',
        '/api/v1/sandbox/episodes/ep-22-cache-invalidation/chapters.json',
        '/api/v1/episodes/ep-24-redis-internals/transcript.vtt',
        '/api/v1/episodes/ep-24-redis-internals/transcript.srt',
        '/api/v1/sandbox/episodes/ep-24-redis-internals/transcript.json',
        '/api/openapi.json',
        '/docs',
        '/llms.txt',
        '/sitemap-index.xml',
        '/feed.xml',
      ]),
    )
    expect(urls.some((url) => /^\/api\/v1\/episodes\.json\?cursor=/.test(url))).toBe(true)
    expect(urls.some((url) => /^\/api\/v1\/sandbox\/episodes\.json\?cursor=/.test(url))).toBe(true)
  })

  // Over a thousand requests to each server: bounded generously, as the machine may be busy.
  it.each(['identity', 'br', 'gzip'])(
    'is served by nginx as by the origin, in %s',
    async (coding) => {
      for (const {url} of files) {
        const [fromOrigin, fromNginx] = await both(url, {headers: {'Accept-Encoding': coding}})
        expect(fromOrigin.status, url).toBe(200)
        expectSame(url, fromOrigin, fromNginx)
      }
    },
    120_000,
  )

  it('answers HEAD and If-Modified-Since the same way', async () => {
    for (const url of ['/api/v1/index.json', '/api/v1/episodes.json', '/docs', '/.well-known/api-catalog']) {
      const [originHead, nginxHead] = await both(url, {method: 'HEAD', headers: {'Accept-Encoding': 'br'}})
      expectSame(url, originHead, nginxHead)
      const since = {'If-Modified-Since': String(originHead.headers['last-modified'])}
      const [originConditional, nginxConditional] = await both(url, {headers: since})
      expect([originConditional.status, nginxConditional.status]).toEqual([304, 304])
    }
  })

  it('answers 304 to its own ETag, distinct per coding', async () => {
    const url = '/api/v1/all.json'
    const brotli = await rawRequest(`${nginxUrl}${url}`, {headers: {'Accept-Encoding': 'br'}})
    const gzip = await rawRequest(`${nginxUrl}${url}`, {headers: {'Accept-Encoding': 'gzip'}})
    expect(brotli.headers.etag).not.toBe(gzip.headers.etag)
    const conditional = await rawRequest(`${nginxUrl}${url}`, {
      headers: {'Accept-Encoding': 'br', 'If-None-Match': String(brotli.headers.etag)},
    })
    expect(conditional.status).toBe(304)
  })
})

describe('errors', () => {
  it.each([
    ['GET', '/api/v1/episodes/no-such-episode.json'],
    ['GET', '/api/v1/sandbox/voices/no-such-voice.json'],
    ['GET', '/api/v1/meetups/Not_A_Slug.json'],
    ['GET', '/api/v1/episodes/%D7%A9.json'],
    ['GET', '/api/v1/nothing-here.json'],
    ['GET', '/api/v1'],
    ['GET', '/api/v1/'],
    ['GET', '/api/v1/episodes/'],
    ['GET', '/nothing-here'],
    ['HEAD', '/api/v1/episodes/no-such-episode.json'],
    ['POST', '/api/v1/index.json'],
    ['PUT', '/api/v1/episodes.json'],
    ['DELETE', '/api/v1/sandbox/all.json'],
    ['PATCH', '/docs'],
    ['OPTIONS', '/api/openapi.json'],
    ['POST', '/api/v1/no-such-path.json'],
  ])('%s %s: the same status and problem body', async (method, path) => {
    const [fromOrigin, fromNginx] = await both(path, {method})
    expect(fromOrigin.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expectSame(`${method} ${path}`, fromOrigin, fromNginx)
  })

  it('answers a CORS preflight as the origin does', async () => {
    const headers = {Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET'}
    const [fromOrigin, fromNginx] = await both('/api/v1/episodes.json', {method: 'OPTIONS', headers})
    expect([fromOrigin.status, fromNginx.status]).toEqual([204, 204])
    for (const name of [
      'access-control-allow-origin',
      'access-control-allow-methods',
      'access-control-allow-headers',
      'access-control-max-age',
    ]) {
      expect(fromNginx.headers[name], name).toBe(fromOrigin.headers[name])
    }
  })
})

/** Writes `raw` on one connection and reads the first response nginx sends (headers and a Content-Length body). */
async function exchange(raw: string): Promise<{status: number; headers: Map<string, string>; body: string}> {
  const socket = connect(Number(new URL(nginxUrl).port), '127.0.0.1')
  socket.write(raw)
  let received = Buffer.alloc(0)
  const split = () => {
    const end = received.indexOf('\r\n\r\n')
    if (end < 0) return undefined
    const [statusLine = '', ...headerLines] = received.subarray(0, end).toString('latin1').split('\r\n')
    const headers = new Map(
      headerLines.map((line) => [
        line.slice(0, line.indexOf(':')).toLowerCase(),
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    )
    const body = received.subarray(end + 4)
    const complete = body.length >= Number(headers.get('content-length') ?? Number.POSITIVE_INFINITY)
    return complete
      ? {status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]), headers, body: body.toString('utf8')}
      : undefined
  }
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no complete response in 2 s: ${received.toString('latin1').slice(0, 300)}`)),
        2000,
      )
      socket.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk])
        const response = split()
        if (response) {
          clearTimeout(timer)
          resolve(response)
        }
      })
      socket.once('error', (error) => {
        clearTimeout(timer)
        reject(error)
      })
    })
  } finally {
    socket.destroy()
  }
}

const problemShape = z
  .object({type: z.string(), title: z.string(), status: z.number(), detail: z.string(), instance: z.string()})
  .strict()

describe('what the export promises', () => {
  it('names no MCP endpoint and no limit example in the portal and llms.txt nginx serves, and has no server card', async () => {
    for (const path of ['/docs', '/llms.txt', '/auth.md', '/.well-known/ai-catalog.json', '/.well-known/api-catalog']) {
      const body = (await rawRequest(`${nginxUrl}${path}`)).body.toString('utf8')
      expect({path, mcp: /\/mcp\b/.exec(body)?.[0], paging: /[?&](limit|cursor)=/.exec(body)?.[0]}).toEqual({
        path,
        mcp: undefined,
        paging: undefined,
      })
    }
    for (const path of ['/.well-known/mcp/server-card.json', '/mcp/server-card', '/.well-known/agent-card.json'])
      expect((await rawRequest(`${nginxUrl}${path}`)).status, path).toBe(404)
  })
})

describe('what nginx itself refuses', () => {
  it('still says why it refuses a list page it does not hold (its own 400, not the generic one)', async () => {
    const response = await rawRequest(`${nginxUrl}/api/v1/episodes.json?limit=5`)
    expect(response.status).toBe(400)
    expect(problemShape.parse(JSON.parse(response.body.toString('utf8'))).detail).toMatch(/serves pages of 100 items/)
  })

  it.each([
    '/api/v1/index.json',
    '/api/v1/episodes.json',
    '/api/v1/sandbox/voices.json',
    '/docs',
    '/llms.txt',
    '/sitemap-index.xml',
    '/api/openapi.json',
  ])('%s: its compressed siblings are never served as files, in any coding', async (url) => {
    for (const suffix of ['.br', '.gz']) {
      for (const coding of ['identity', 'br', 'gzip']) {
        const path = `${url}${suffix}`
        const [fromOrigin, fromNginx] = await both(path, {headers: {'Accept-Encoding': coding}})
        expect(fromOrigin.status, path).toBe(404)
        expectSame(`${path} ${coding}`, fromOrigin, fromNginx)
      }
    }
  })

  it.each([
    {name: 'a traversal above the root', raw: 'GET /../etc/passwd HTTP/1.1\r\nHost: api.test\r\n\r\n', status: 400},
    {
      name: 'an encoded traversal',
      raw: 'GET /api/v1/%2e%2e/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: api.test\r\n\r\n',
      status: 400,
    },
    {name: 'a request line that is not HTTP', raw: 'GET / HTTP/1.1 extra\r\nHost: api.test\r\n\r\n', status: 400},
    {name: 'HTTP/1.1 without a Host', raw: 'GET /api/v1/index.json HTTP/1.1\r\n\r\n', status: 400},
    {
      name: 'a transfer coding nginx does not know',
      raw: 'POST /api/v1/index.json HTTP/1.1\r\nHost: api.test\r\nTransfer-Encoding: compress\r\n\r\n',
      status: 400,
    },
    {
      name: 'an HTTP version nginx does not speak',
      raw: 'GET /api/v1/index.json HTTP/2.5\r\nHost: api.test\r\n\r\n',
      status: 400,
    },
    {
      name: 'a body over the limit',
      raw: 'POST /api/v1/index.json HTTP/1.1\r\nHost: api.test\r\nContent-Length: 100000000\r\n\r\n',
      status: 413,
    },
    {
      name: "a request line over nginx's buffers",
      raw: `GET /api/v1/${'a'.repeat(9000)}.json HTTP/1.1\r\nHost: api.test\r\n\r\n`,
      status: 414,
    },
    {
      name: "a header over nginx's buffers",
      raw: `GET /api/v1/index.json HTTP/1.1\r\nHost: api.test\r\nX-Large: ${'a'.repeat(9000)}\r\n\r\n`,
      status: 431,
    },
    {name: 'a file nginx cannot open', raw: 'GET /api/v1/damaged.json HTTP/1.1\r\nHost: api.test\r\n\r\n', status: 500},
  ])("$name: a $status problem+json, not nginx's HTML page", async ({raw, status}) => {
    const response = await exchange(raw)
    expect(response.status).toBe(status)
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    const problem = problemShape.parse(JSON.parse(response.body))
    expect(problem).toMatchObject({status, type: expect.stringMatching(/^http:\/\/api\.test\/docs#errors-/)})
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(response.body))
  })
})
