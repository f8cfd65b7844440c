// Integration over raw TCP on loopback: 1,000 request bodies abandoned halfway, on paths that answer
// before reading them (405, 404) and on paths that read them (MCP, the webhook), from many source
// addresses. Each must leave the body count, or POST would be refused 503 for good. Real sockets
// against the real server (startTestServer, with request logs and metrics as `npm start` has them).
import {readdirSync} from 'node:fs'
import {connect} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {DEFAULT_LIMITS} from '../../server/http/server.ts'
import {z} from 'zod'
import {startTestServer, type TestServer} from '../../support/server.ts'
import {sendSignedWebhook} from '../helpers/signed-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const WEBHOOK_PATH = '/webhooks/sanity'
// 405 (the API is read-only), 404, and the two paths that read a body.
const PATHS = ['/api/v1/index.json', '/no-such-path', '/mcp', WEBHOOK_PATH] as const
const ABANDONED = 1000
const AT_ONCE = 50
// How long to wait for what should come at once (an answer, a close, the count back to 0): only a
// hang runs this long, a busy machine does not; each wait ends as soon as it is met.
const LIVENESS_MS = 20_000
const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
}

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

const openDescriptors = () => readdirSync('/proc/self/fd').length

/**
 * Headers announcing a body (100 bytes unless `headers` says otherwise), 11 bytes of it, then a
 * half-close or a reset a few ms later. Resolves with the status the server answered (0: none)
 * once the server closes or LIVENESS_MS pass.
 */
function abandon(
  port: number,
  path: string,
  localAddress: string,
  leave: 'end' | 'destroy',
  headers = 'Host: 127.0.0.1\r\nContent-Length: 100\r\n',
): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({port, host: '127.0.0.1', localAddress})
    let text = ''
    const done = () => {
      clearTimeout(timer)
      socket.destroy()
      resolve(Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0))
    }
    const timer = setTimeout(done, LIVENESS_MS)
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    socket.once('close', done)
    socket.once('error', () => undefined)
    socket.once('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\n${headers}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\r\n{"jsonrpc":`,
      )
      setTimeout(() => (leave === 'end' ? socket.end() : socket.destroy()), 5).unref()
    })
  })
}

/** Reads `read` until `done` accepts its value or `ms` pass; the last value read. */
async function settled(read: () => Promise<number>, done: (value: number) => boolean, ms: number): Promise<number> {
  const deadline = performance.now() + ms
  let value = await read()
  while (!done(value) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    value = await read()
  }
  return value
}

/** The i-th of many loopback addresses (Linux routes all of 127.0.0.0/8 to lo), so no address reaches the per-client connection cap. */
const sourceAddress = (index: number) => `127.1.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`

it(
  'lets 1,000 bodies abandoned halfway leave the count: afterwards MCP and a signed webhook are answered, and nothing is held',
  {timeout: 120_000},
  async () => {
    // No body timeout within the test: only the gate's own release can make room for the answers after the attack.
    server = await startTestServer({
      observed: true,
      limits: {...DEFAULT_LIMITS, requestTimeoutMs: 10 * 60_000},
      environment: {SANITY_WEBHOOK_SECRET: SECRET},
    })
    const {baseUrl} = server
    const port = Number(new URL(baseUrl).port)
    const bodiesInFlight = async () =>
      z.object({request_bodies_in_flight: z.number()}).parse(await (await fetch(`${baseUrl}/status`)).json())
        .request_bodies_in_flight
    // The server runs in this process: its descriptors are this process's, before any attack socket.
    const descriptorsBefore = openDescriptors()

    const statuses = new Map<number, number>()
    let next = 0
    const worker = async () => {
      for (let index = next++; index < ABANDONED; index = next++) {
        const status = await abandon(
          port,
          PATHS[index % PATHS.length] ?? '/',
          sourceAddress(index),
          Math.floor(index / PATHS.length) % 2 === 0 ? 'end' : 'destroy',
        )
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    await Promise.all(Array.from({length: AT_ONCE}, worker))

    const attackEndedAt = performance.now()
    const tools = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}}),
    })
    const toolsText = await tools.text()
    const webhook = await sendSignedWebhook(baseUrl, SECRET, {_id: 'ep-12-audio-at-scale', _type: 'episode'})
    await webhook.arrayBuffer()
    const answeredWithinMs = performance.now() - attackEndedAt
    const count = await settled(bodiesInFlight, (value) => value === 0, LIVENESS_MS)
    // The server closes each connection itself; the last closes may still be on their way.
    const descriptorsAfter = await settled(
      async () => openDescriptors(),
      (value) => value <= descriptorsBefore + 20,
      LIVENESS_MS,
    )
    console.info(
      `abandoned-bodies: ${ABANDONED} bodies, answers ${JSON.stringify(Object.fromEntries(statuses))}; then tools/list ${tools.status}, webhook ${webhook.status} in ${Math.round(answeredWithinMs)} ms; bodies in flight ${count}; descriptors ${descriptorsBefore} before, ${descriptorsAfter} after`,
    )

    expect(count).toBe(0)
    expect(descriptorsAfter).toBeLessThanOrEqual(descriptorsBefore + 20)
    expect(statuses.get(503) ?? 0, 'no body refused for want of room while the attack ran').toBe(0)
    expect(tools.status, toolsText.slice(0, 200)).toBe(200)
    expect(toolsText).toContain('"tools"')
    expect(webhook.status).toBe(202)
    expect(server.loggedErrors).toEqual([])
  },
)

// Each way the server answers a request before reading its body, at a gate of 4 bodies: 12
// abandoned bodies on one path would fill it four times over if any stayed counted.
const UNREAD: [string, string, number, string?][] = [
  ['405, the read-only API', '/api/v1/index.json', 405],
  ['405, an Express route', '/status', 405],
  ['404', '/no-such-path', 404],
  ['413, an MCP body announced too large', '/mcp', 413, 'Host: 127.0.0.1\r\nContent-Length: 40000\r\n'],
  [
    '400, MCP from a foreign origin',
    '/mcp',
    400,
    'Host: 127.0.0.1\r\nOrigin: https://evil.example\r\nContent-Length: 100\r\n',
  ],
  ['421, MCP for a foreign host', '/mcp', 421, 'Host: evil.example\r\nContent-Length: 100\r\n'],
  ['414, a URL too long', `/api/v1/${'x'.repeat(3000)}`, 414],
  ['429, over the rate limit', '/api/v1/index.json', 429],
]

describe('every answer sent before the body is read lets the body go', () => {
  it.each(UNREAD)('%s', {timeout: 60_000}, async (_name, path, status, headers) => {
    const limited = status === 429
    server = await startTestServer({
      limits: {...DEFAULT_LIMITS, maxBodiesInFlight: 4},
      // One source address spends its quota of 2 on the first two bodies; /status is asked from another.
      environment: {SANITY_WEBHOOK_SECRET: SECRET, ...(limited ? {RATE_LIMIT_QUOTA: '2'} : {})},
    })
    const port = Number(new URL(server.baseUrl).port)
    const answers: number[] = []
    for (let index = 0; index < 12; index++)
      answers.push(await abandon(port, path, '127.2.0.1', index % 2 === 0 ? 'end' : 'destroy', headers))
    // A half-closed client still reads the answer; a reset one may have gone first.
    const halfClosed = answers.filter((_, index) => index % 2 === 0)
    expect(limited ? halfClosed.slice(1) : halfClosed).toEqual(Array<number>(limited ? 5 : 6).fill(status))
    const count = await settled(
      async () =>
        z.object({request_bodies_in_flight: z.number()}).parse(await (await fetch(`${server?.baseUrl}/status`)).json())
          .request_bodies_in_flight,
      (value) => value === 0,
      LIVENESS_MS,
    )
    expect(count).toBe(0)
    const tools = await fetch(`${server.baseUrl}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}}),
    })
    expect(tools.status).toBe(200)
  })
})
