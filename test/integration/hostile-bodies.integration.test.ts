// Integration over raw TCP on loopback: request bodies that never finish (aborted, malformed,
// trickled) are answered or closed within the body timeout, abandoned uploads leave no descriptor
// behind, and one client cannot take every connection. Real sockets against the real server.
import {readdirSync} from 'node:fs'
import {connect, type Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {DEFAULT_LIMITS, type ServerLimits} from '../../server/http/server.ts'
import {eventually} from '../../support/eventually.ts'
import {startMainProcess} from '../helpers/main-process.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

// Short timeouts, so a test of them takes a second or two; checked every 100 ms.
const QUICK: ServerLimits = {
  ...DEFAULT_LIMITS,
  headersTimeoutMs: 800,
  requestTimeoutMs: 1200,
  timeoutCheckIntervalMs: 100,
}
// A body timeout no test reaches: what must happen at once cannot pass by waiting for the timeout.
const PATIENT: ServerLimits = {...QUICK, requestTimeoutMs: 60_000}
// How long a client waits for an answer that should come at once or at QUICK's timeouts: only a
// hang (or Node's 30 s default check interval) runs this long, a busy machine does not. Answers
// that close their connection end the wait as soon as they come.
const LIVENESS_MS = 20_000
// The webhook path exists only with a secret.
const WITH_WEBHOOKS = {SANITY_WEBHOOK_SECRET: 'a-secret-of-sixteen-characters'}

const BODY_PATHS = ['/mcp', '/webhooks/sanity'] as const
const HEADERS = (path: string, extra: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${extra}\r\n`

interface Exchange {
  /** Everything the server sent. */
  text: string
  /** Milliseconds from the first byte written to the server closing the connection (or giving up). */
  closedAfterMs: number
  closed: boolean
}

/** Opens a connection from `localAddress`, lets `drive` write to it, and collects the answer until the server closes it or `waitMs` pass. */
async function exchange(
  baseUrl: string,
  drive: (socket: Socket) => void,
  waitMs: number,
  localAddress = '127.0.0.1',
): Promise<Exchange> {
  const socket = connect({port: Number(new URL(baseUrl).port), host: '127.0.0.1', localAddress})
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const startedAt = performance.now()
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  drive(socket)
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs)
    socket.once('close', () => {
      clearTimeout(timer)
      resolve(true)
    })
    socket.once('error', () => undefined)
  })
  const closedAfterMs = performance.now() - startedAt
  socket.destroy()
  return {text: Buffer.concat(chunks).toString('utf8'), closedAfterMs, closed}
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0)

describe('request bodies that never finish', () => {
  it.each(BODY_PATHS)(
    'closes an upload to %s that the client abandoned halfway (headers and 11 of 100 bytes, then FIN)',
    {timeout: 40_000},
    async (path) => {
      // The body timeout is a minute: closed within LIVENESS_MS, it was closed for the FIN, not the timeout.
      server = await startTestServer({limits: PATIENT, environment: WITH_WEBHOOKS})
      const answer = await exchange(
        server.baseUrl,
        (socket) => socket.end(`${HEADERS(path, 'Content-Length: 100\r\n')}{"jsonrpc":`),
        LIVENESS_MS,
      )
      expect(answer.closed, `still open after ${LIVENESS_MS} ms`).toBe(true)
      // The client can no longer send the rest: it is told why, if it still reads.
      if (answer.text !== '') expect(statusOf(answer.text)).toBe(400)
    },
  )

  it.each(BODY_PATHS)(
    'answers a chunked body to %s with a bad chunk size with a 400 problem and closes',
    {timeout: 40_000},
    async (path) => {
      server = await startTestServer({limits: QUICK, observed: true, environment: WITH_WEBHOOKS})
      const answer = await exchange(
        server.baseUrl,
        (socket) => socket.write(`${HEADERS(path, 'Transfer-Encoding: chunked\r\n')}zz\r\n`),
        LIVENESS_MS,
      )
      expect(answer.closed, `still open after ${LIVENESS_MS} ms`).toBe(true)
      expect(statusOf(answer.text)).toBe(400)
      expect(answer.text).toMatch(/Content-Type: application\/problem\+json/i)
      expect(answer.text).toContain('"status":400')
    },
  )

  // The server skips the body stream of a request that declares no body (optimizeEmptyRequests), so
  // a handler waiting for that stream's 'end' would hold such a request until the client left.
  it.each(BODY_PATHS)(
    'answers a POST to %s that declares no body (neither Content-Length nor Transfer-Encoding) at once, with a 400',
    {timeout: 40_000},
    async (path) => {
      // No timeout answers for the handler within LIVENESS_MS: a 400 by then is the handler's own.
      server = await startTestServer({limits: PATIENT, environment: WITH_WEBHOOKS})
      const answer = await exchange(
        server.baseUrl,
        (socket) => socket.write(HEADERS(path, 'Connection: close\r\n')),
        LIVENESS_MS,
      )
      expect(statusOf(answer.text)).toBe(400)
      expect(answer.closed, `still open after ${LIVENESS_MS} ms`).toBe(true)
    },
  )

  it.each(BODY_PATHS)(
    'answers a body to %s trickled a byte at a time with 408 at the body timeout',
    {timeout: 40_000},
    async (path) => {
      server = await startTestServer({limits: QUICK, environment: WITH_WEBHOOKS})
      let timer: NodeJS.Timeout | undefined
      const answer = await exchange(
        server.baseUrl,
        (socket) => {
          socket.write(HEADERS(path, 'Content-Length: 32000\r\n'))
          timer = setInterval(() => socket.writable && socket.write('{'), 200)
        },
        LIVENESS_MS,
      )
      clearInterval(timer)
      // Each byte arrives well within the timeout: only a timeout on the whole body ends it, and not before it runs out.
      expect(answer.closed, `still open after ${LIVENESS_MS} ms`).toBe(true)
      expect(answer.closedAfterMs).toBeGreaterThanOrEqual(QUICK.requestTimeoutMs)
      expect(statusOf(answer.text)).toBe(408)
      expect(answer.text).toMatch(/Content-Type: application\/problem\+json/i)
    },
  )
})

describe('descriptors and connections under a flood', () => {
  it(
    'returns to its baseline of descriptors after 2,000 abandoned uploads, and still answers another client',
    {timeout: 60_000},
    async () => {
      // Its own process, as npm start runs it, so its descriptors are counted apart from the clients'.
      const main = await startMainProcess({
        PORT: '0',
        DATASET_FILE: SAMPLE_DATASET,
        RECONCILE_INTERVAL_SECONDS: '0',
        ...WITH_WEBHOOKS,
      })
      try {
        const port = Number(new URL(main.baseUrl).port)
        const descriptors = () => readdirSync(`/proc/${main.pid}/fd`).length
        await fetch(`${main.baseUrl}/api/v1/index.json`).then((response) => response.arrayBuffer())
        const baseline = descriptors()
        const sockets: Socket[] = []
        for (let batch = 0; batch < 20; batch++) {
          await Promise.all(
            Array.from({length: 100}, (_, index) => {
              const socket = connect({port, host: '127.0.0.1'})
              socket.on('error', () => undefined)
              sockets.push(socket)
              const upload = `${HEADERS(BODY_PATHS[index % 2] ?? '/mcp', 'Content-Length: 100\r\n')}{"jsonrpc":`
              return new Promise<void>((resolve) =>
                socket
                  .once('connect', () => {
                    socket.end(upload)
                    resolve()
                  })
                  .once('error', () => resolve()),
              )
            }),
          )
        }
        // The clients never read nor close: only the server closing its side frees its descriptors.
        await eventually(async () => expect(descriptors()).toBeLessThanOrEqual(baseline + 2), 30_000)
        const other = await exchange(
          main.baseUrl,
          (socket) => socket.write('GET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
          LIVENESS_MS,
          '127.0.0.2',
        )
        expect(statusOf(other.text)).toBe(200)
        for (const socket of sockets) socket.destroy()
      } finally {
        await main.stop()
      }
    },
  )

  it(
    'caps the connections one client address holds, while another address is still served',
    {timeout: 90_000},
    async () => {
      server = await startTestServer({limits: {...QUICK, maxConnectionsPerClient: 20}})
      const port = Number(new URL(server.baseUrl).port)
      const held: Socket[] = []
      for (let index = 0; index < 20; index++) {
        const socket = connect({port, host: '127.0.0.1', localAddress: '127.0.0.1'})
        socket.on('error', () => undefined)
        await new Promise<void>((resolve) => socket.once('connect', resolve))
        held.push(socket)
      }
      const refused = await exchange(
        server.baseUrl,
        (socket) => socket.write('GET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
        LIVENESS_MS,
      )
      expect(statusOf(refused.text)).toBe(429)
      expect(refused.text).toMatch(/Content-Type: application\/problem\+json/i)
      expect(refused.closed).toBe(true)
      const other = await exchange(
        server.baseUrl,
        (socket) => socket.write('GET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
        LIVENESS_MS,
        '127.0.0.2',
      )
      expect(statusOf(other.text)).toBe(200)
      // A held connection closed frees its place.
      held.pop()?.destroy()
      await new Promise((resolve) => setTimeout(resolve, 50))
      const again = await exchange(
        server.baseUrl,
        (socket) => socket.write('GET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
        LIVENESS_MS,
      )
      expect(statusOf(again.text)).toBe(200)
      for (const socket of held) socket.destroy()
    },
  )

  it(
    'refuses a body beyond the bodies in flight with a 503 problem, and reads the next once one is done',
    {timeout: 60_000},
    async () => {
      server = await startTestServer({limits: {...QUICK, maxBodiesInFlight: 3}})
      const port = Number(new URL(server.baseUrl).port)
      const trickling: Socket[] = []
      for (let index = 0; index < 3; index++) {
        const socket = connect({port, host: '127.0.0.1'})
        socket.on('error', () => undefined)
        await new Promise<void>((resolve) => socket.once('connect', resolve))
        socket.write(`${HEADERS('/mcp', 'Content-Length: 100\r\n')}{`)
        trickling.push(socket)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      const refused = await exchange(
        server.baseUrl,
        (socket) => socket.write(`${HEADERS('/mcp', 'Content-Length: 100\r\n')}{`),
        LIVENESS_MS,
      )
      expect(statusOf(refused.text)).toBe(503)
      expect(refused.text).toMatch(/Retry-After: \d+/i)
      expect(refused.closed).toBe(true)
      for (const socket of trickling) socket.destroy()
      await new Promise((resolve) => setTimeout(resolve, 100))
      const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}})
      const accepted = await exchange(
        server.baseUrl,
        (socket) =>
          socket.write(
            `${HEADERS('/mcp', `Content-Length: ${body.length}\r\nMCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\n`)}${body}`,
          ),
        3000,
      )
      expect(statusOf(accepted.text)).toBe(200)
    },
  )
})
