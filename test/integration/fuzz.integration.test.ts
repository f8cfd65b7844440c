// A seeded fuzz over raw TCP: thousands of odd requests (methods, paths, percent-encoding,
// headers), each answered without a 5xx, a 401/403 or an HTML error page, and the server still up.
import {connect} from 'node:net'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../../support/server.ts'

const SEED = 20261121
const REQUESTS = 3000
const CONCURRENCY = 24

let server: TestServer
let port: number
beforeAll(async () => {
  server = await startTestServer()
  port = Number(new URL(server.baseUrl).port)
})
afterAll(async () => {
  await server.close()
})

/** mulberry32: a small seeded generator, so a failure replays exactly. */
function generator(seed: number) {
  let state = seed
  const next = () => {
    state = (state + 0x6d2b79f5) | 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T
  return {next, pick}
}

const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'CONNECT',
  'PROPFIND',
  'FOO',
  'get',
  'G3T',
]
const PATHS = [
  '/',
  '/api',
  '/api/v1',
  '/api/v1/',
  '/api/v1/index.json',
  '/api/v1/all.json',
  '/api/v1/episodes.json',
  '/api/v1/sandbox/voices.json',
  '/api/v1/search.json',
  '/api/v1/sandbox/search.json',
  '/api/v1/changes.json',
  '/api/v1/events',
  '/api/v1/episodes/ep-3-schema-migrations.json',
  '/api/v1/voices/noa-levi.json',
  '/api/v1/meetups/x.json',
  '/api/openapi.json',
  '/docs',
  '/llms.txt',
  '/.well-known/api-catalog',
  '/mcp',
  '/mcp/health',
  '/status',
  '/webhooks/sanity',
  '/sitemap-index.xml',
  '/metrics',
]
const PIECES = [
  '%',
  '%2',
  '%zz',
  '%00',
  '%FF',
  '%E0%A4%A',
  '%D7%A9',
  '..',
  '//',
  '\\',
  '?',
  '??',
  '#',
  ';',
  ':',
  '@',
  '~',
  "'",
  '(',
  '*',
  '%2e%2e',
  'נ',
  'a'.repeat(300),
]
const QUERIES = [
  '',
  '?',
  '?limit=0',
  '?limit=501',
  '?limit=abc',
  '?limit=2&limit=3',
  '?cursor=',
  '?cursor=!!!',
  '?cursor=eyJ4IjoxfQ',
  '?limit=1e3',
  '?limit=%31',
  '?a=%',
  '?limit=-1',
  '?limit=00007',
  '?q=',
  '?q=%D7%A8%D7%99%D7%90%D7%A7%D7%98',
  '?q=kafka&limit=50',
  '?q=!!!&q=a',
  '?q=%D0%BF%D1%80%D0%B8',
  `?q=${'a'.repeat(201)}`,
  '?q=+++',
]
const HEADER_LINES = [
  'Accept-Encoding: br;q=oops, gzip;q=2',
  'Accept-Encoding: *;q=0',
  'Accept-Encoding: identity;q=0',
  'If-None-Match: "unterminated',
  'If-None-Match: *',
  'If-Modified-Since: yesterday',
  'If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT',
  'Range: bytes=0-10',
  'Origin: null',
  'Access-Control-Request-Method: GET',
  'Content-Type: application/json',
  'Content-Length: 0',
  'Transfer-Encoding: chunked',
  'Expect: 100-continue',
  'X-Forwarded-For: 1.2.3.4, ::1',
  'Authorization: Bearer nonsense',
  'Cookie: a=b',
  'Upgrade: websocket',
  'Accept: text/html',
  'Mcp-Session-Id: x',
  'MCP-Protocol-Version: 1999-01-01',
]

function oddRequest(random: ReturnType<typeof generator>): string {
  const method = random.pick(METHODS)
  let path = random.pick(PATHS)
  const pieces = Math.floor(random.next() * 3)
  for (let index = 0; index < pieces; index++) path += random.pick(PIECES)
  const target = random.next() < 0.05 ? '*' : `${encodeURI(path).replaceAll('%25', '%')}${random.pick(QUERIES)}`
  const headers = ['Host: 127.0.0.1', 'Connection: close']
  const extra = Math.floor(random.next() * 4)
  for (let index = 0; index < extra; index++) headers.push(random.pick(HEADER_LINES))
  const body = headers.some((line) => line.startsWith('Transfer-Encoding')) ? '0\r\n\r\n' : ''
  return `${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n${body}`
}

function exchange(request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    const chunks: Buffer[] = []
    socket.setTimeout(5000, () => socket.destroy())
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    socket.on('error', () => undefined)
  })
}

it(`answers ${REQUESTS} odd requests without 5xx, 401/403 or HTML errors, and stays up`, async () => {
  const random = generator(SEED)
  const requests = Array.from({length: REQUESTS}, () => oddRequest(random))
  const failures: string[] = []
  const unanswered: string[] = []
  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++] ?? ''
      const response = await exchange(request)
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1])
      if (!status) {
        // Node drops a CONNECT when the server has no tunnel handler: no answer is the right one.
        if (!request.startsWith('CONNECT ')) unanswered.push(request.split('\r\n')[0] ?? '')
        continue
      }
      const head = response.slice(0, response.indexOf('\r\n\r\n')).toLowerCase()
      const contentType = /\r\ncontent-type: ([^\r]*)/.exec(head)?.[1] ?? ''
      const body = response.slice(response.indexOf('\r\n\r\n') + 4)
      // The MCP endpoint answers protocol errors as JSON-RPC error objects, which MCP clients parse.
      const jsonRpcError =
        / \/mcp[ ?]/.test(request.split('\r\n')[0] ?? '') &&
        contentType.startsWith('application/json') &&
        /"jsonrpc":"2\.0"/.test(body) &&
        /"error":\{/.test(body)
      const explained = contentType.startsWith('application/problem+json') || jsonRpcError
      const problem = status >= 500 || status === 401 || status === 403 || (status >= 400 && !explained)
      if (problem) failures.push(`${status} ${contentType} <- ${request.split('\r\n')[0]}`)
    }
  }
  await Promise.all(Array.from({length: CONCURRENCY}, worker))
  expect(failures).toEqual([])
  expect(unanswered).toEqual([])
  expect(server.loggedErrors).toEqual([])
  expect((await fetch(`${server.baseUrl}/api/v1/index.json`)).status).toBe(200)
}, 120_000)
