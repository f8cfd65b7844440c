// Request log lines over real HTTP: the request listener and the log observer as the server wires
// them, in front of representations written as the fast path writes them.
import {createServer, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {sendRepresentation} from '../../server/http/representation-response.ts'
import {createRequestListener} from '../../server/http/request-listener.ts'
import {pathOf} from '../../server/http/request-target.ts'
import {createLogger} from '../../server/observability/logger.ts'
import {requestLogObserver} from '../../server/observability/request-log.ts'
import {represent, type Representation} from '../../server/snapshot/representation.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {rawRequest} from '../helpers/raw-http.ts'

const lines: string[] = []
let server: Server
let baseUrl: string
const small = represent(JSON.stringify({data: {title: 'פרק 3'}}), () => new Date('2026-11-01T00:00:00Z'))
const largePieces = Array.from({length: 2048}, (_, index) => Buffer.alloc(16 * 1024, 97 + (index % 26)))
const large = represent(new ChunkedBody(largePieces, 0), () => new Date('2026-11-01T00:00:00Z'))
// One buffer, ended in the same call as its head, larger than a loopback socket takes at once.
const oneLargeBuffer = represent(
  JSON.stringify({data: 'א'.repeat(16 * 1024 * 1024)}),
  () => new Date('2026-11-01T00:00:00Z'),
)
const served = new Map<string, Representation>([
  ['/small', small],
  ['/large', large],
  ['/one-large-buffer', oneLargeBuffer],
])

beforeAll(async () => {
  const logger = createLogger('info', {write: (line: string) => void lines.push(line)})
  server = createServer(
    createRequestListener({
      fastPath: (incoming, response, headers) => {
        const representation = served.get(pathOf(incoming.url ?? '/'))
        if (representation) sendRepresentation(incoming, response, representation, {headers})
        return representation !== undefined
      },
      application: (_incoming, response) => response.writeHead(404).end(),
      observe: requestLogObserver(logger, () => '127.0.0.1'),
      publicBaseUrl: 'http://api.test',
      onError: (error) => {
        throw error
      },
    }),
  )
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const entries = () => lines.map((line) => JSON.parse(line))
// How long to wait for a request's line, which follows its response at once: vitest's default of
// 1 s is a wall-clock bound a busy machine can pass; only a line never written waits this long.
const LINE_WITHIN = {timeout: 10_000}
const entryFor = (id: string) => entries().find((entry) => entry.req?.id === id)

describe('request log lines', () => {
  it("log a response written in full as completed, with its status, body bytes and pino's fields", async () => {
    const userAgent = 'agent "quoted" \\ back\tslash ñ {"level":50}'
    const before = Date.now()
    const response = await rawRequest(`${baseUrl}/small?q="x"`, {
      headers: {'X-Request-Id': 'full-1', 'User-Agent': userAgent},
    })
    expect(response.status).toBe(200)
    await expect.poll(() => entryFor('full-1'), LINE_WITHIN).toBeDefined()
    const after = Date.now()
    const line = lines.find((candidate) => candidate.includes('"full-1"')) ?? ''
    expect(line.endsWith('}\n')).toBe(true)
    const entry = JSON.parse(line)
    expect(Object.keys(entry)).toEqual([
      'level',
      'time',
      'service',
      'req',
      'client',
      'res',
      'responseTime',
      'bytes',
      'msg',
    ])
    expect(entry).toMatchObject({
      level: 30,
      service: 'catalog-api',
      req: {id: 'full-1', method: 'GET', url: '/small?q=%22x%22', userAgent},
      client: '127.0.0.1',
      res: {statusCode: 200},
      bytes: small.body.length,
      msg: 'request completed',
    })
    // The wall clock's time, though the line's millisecond is told by the monotonic one: between
    // the wall-clock readings on either side of the request, however long it took.
    expect(Date.parse(entry.time)).toBeGreaterThanOrEqual(before)
    expect(Date.parse(entry.time)).toBeLessThanOrEqual(after)
  })

  it('log HEAD and 304 with no body bytes', async () => {
    const full = await rawRequest(`${baseUrl}/small`)
    await rawRequest(`${baseUrl}/small`, {method: 'HEAD', headers: {'X-Request-Id': 'head-1'}})
    await rawRequest(`${baseUrl}/small`, {
      headers: {'X-Request-Id': 'revalidated-1', 'If-None-Match': String(full.headers.etag)},
    })
    await expect.poll(() => entryFor('revalidated-1'), LINE_WITHIN).toBeDefined()
    await expect.poll(() => entryFor('head-1'), LINE_WITHIN).toBeDefined()
    expect(entryFor('head-1')).toMatchObject({res: {statusCode: 200}, bytes: 0, msg: 'request completed'})
    expect(entryFor('revalidated-1')).toMatchObject({res: {statusCode: 304}, bytes: 0, msg: 'request completed'})
  })

  it('log a large body read to the end as completed with all its bytes', async () => {
    const response = await rawRequest(`${baseUrl}/large`, {headers: {'X-Request-Id': 'large-1'}})
    expect(response.body.length).toBe(large.body.length)
    await expect.poll(() => entryFor('large-1'), LINE_WITHIN).toBeDefined()
    expect(entryFor('large-1')).toMatchObject({
      res: {statusCode: 200},
      bytes: large.body.length,
      msg: 'request completed',
    })
  })

  it('log a client that goes away mid-body as aborted, with the bytes sent until then', async () => {
    await goAwayAfterFirstBytes('/large', 'aborted-1')
    await expect.poll(() => entryFor('aborted-1'), LINE_WITHIN).toBeDefined()
    const entry = entryFor('aborted-1')
    expect(entry).toMatchObject({res: {statusCode: 200}, msg: 'request aborted by the client'})
    expect(entry.bytes).toBeGreaterThan(0)
    expect(entry.bytes).toBeLessThan(large.body.length)
  })

  it('log a client that goes away mid-body as aborted when the body went to the socket as one buffer with its head', async () => {
    await goAwayAfterFirstBytes('/one-large-buffer', 'aborted-2')
    await expect.poll(() => entryFor('aborted-2'), LINE_WITHIN).toBeDefined()
    // Node reports one write's bytes whole: the line counts what was handed to the connection.
    expect(entryFor('aborted-2')).toMatchObject({
      res: {statusCode: 200},
      bytes: oneLargeBuffer.body.length,
      msg: 'request aborted by the client',
    })
  })
})

function goAwayAfterFirstBytes(path: string, id: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const outgoing = request(`${baseUrl}${path}`, {headers: {'X-Request-Id': id}, agent: false}, (incoming) => {
      incoming.once('data', () => {
        outgoing.destroy()
        resolve()
      })
    })
    outgoing.on('error', () => undefined)
    outgoing.end()
  })
}
