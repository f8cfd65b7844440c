// The bulk document's two ways of being written, over real HTTP: one buffer (a catalog up to
// ONE_BUFFER_LIMIT) and its chunks with backpressure (a larger one, forced here with a limit of 0).
import {createServer, request, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {setTimeout as sleep} from 'node:timers/promises'
import {brotliDecompressSync, gunzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {sendRepresentation} from '../../server/http/representation-response.ts'
import {represent, type Representation} from '../../server/snapshot/representation.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {startTestServer} from '../../support/server.ts'

let server: Server
let baseUrl: string
let before: Buffer
const responses: ServerResponse[] = []
const served = new Map<string, Representation>()

/** The sample catalog's bulk document cut in pieces of about an item's size, as the snapshot builds it. */
function piecesOf(bytes: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = []
  for (let start = 0; start < bytes.length; start += size) pieces.push(bytes.subarray(start, start + size))
  return pieces
}

beforeAll(async () => {
  const catalog = await startTestServer()
  before = (await rawRequest(`${catalog.baseUrl}/api/v1/all.json`, {headers: {'Accept-Encoding': 'identity'}})).body
  await catalog.close()
  const lastModified = () => new Date('2026-11-01T00:00:00Z')
  const pieces = piecesOf(before, 1500)
  served.set('/one-buffer', represent(new ChunkedBody(pieces), lastModified))
  served.set('/chunked', represent(new ChunkedBody(pieces, 0), lastModified))
  // Large enough that the socket pushes back many times (32 MiB of repeated catalog).
  const large: Buffer[] = []
  while (large.length * 1500 < 32 * 1024 * 1024) large.push(...pieces)
  served.set('/large', represent(new ChunkedBody(large, 0), lastModified))
  server = createServer((incoming, response) => {
    responses.push(response)
    const representation = served.get(incoming.url ?? '')
    if (representation) sendRepresentation(incoming, response, representation)
    else response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe.each(['/one-buffer', '/chunked'])('the bulk document written as %s', (path) => {
  it('sends the same bytes as before, identity and compressed', async () => {
    expect(served.get(path)?.body.length).toBe(before.length)
    const identity = await rawRequest(`${baseUrl}${path}`, {headers: {'Accept-Encoding': 'identity'}})
    expect(identity.status).toBe(200)
    expect(identity.body.equals(before)).toBe(true)
    expect(Number(identity.headers['content-length'])).toBe(before.length)
    const brotli = await rawRequest(`${baseUrl}${path}`, {headers: {'Accept-Encoding': 'br'}})
    expect(brotli.headers['content-encoding']).toBe('br')
    expect(brotliDecompressSync(brotli.body).equals(before)).toBe(true)
    const gzip = await rawRequest(`${baseUrl}${path}`, {headers: {'Accept-Encoding': 'gzip'}})
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzip.body).equals(before)).toBe(true)
  })

  it('answers HEAD with the headers of GET and a 304 to its ETag', async () => {
    const full = await rawRequest(`${baseUrl}${path}`, {headers: {'Accept-Encoding': 'identity'}})
    const head = await rawRequest(`${baseUrl}${path}`, {method: 'HEAD', headers: {'Accept-Encoding': 'identity'}})
    expect(head.status).toBe(200)
    expect(head.body.length).toBe(0)
    expect(head.headers['content-length']).toBe(full.headers['content-length'])
    expect(head.headers.etag).toBe(full.headers.etag)
    const notModified = await rawRequest(`${baseUrl}${path}`, {
      headers: {'Accept-Encoding': 'identity', 'If-None-Match': String(full.headers.etag)},
    })
    expect(notModified.status).toBe(304)
    expect(notModified.body.length).toBe(0)
  })
})

describe('a large chunked body', () => {
  const expected = () => served.get('/large')?.body

  it('reaches a slow reader whole: the writer waits for the socket instead of queueing everything', async () => {
    const body = expected()
    if (!(body instanceof ChunkedBody)) throw new Error('expected a chunked body')
    responses.length = 0
    const received = await new Promise<Buffer>((resolve, reject) => {
      const outgoing = request(
        `${baseUrl}/large`,
        {headers: {'Accept-Encoding': 'identity'}, agent: false},
        (incoming) => {
          const chunks: Buffer[] = []
          let reads = 0
          incoming.on('data', (chunk: Buffer) => {
            chunks.push(chunk)
            // Every so often the reader stops a while, and the server's socket fills.
            if (++reads % 64 === 0) {
              incoming.pause()
              const response = responses[0]
              // Backpressure: what the server queued stays bounded, far below the body's size.
              if (response) expect(response.writableLength).toBeLessThan(4 * 1024 * 1024)
              setTimeout(() => incoming.resume(), 5)
            }
          })
          incoming.on('end', () => resolve(Buffer.concat(chunks)))
          incoming.on('error', reject)
        },
      )
      outgoing.on('error', reject)
      outgoing.end()
    })
    expect(received.length).toBe(body.length)
    expect(received.equals(Buffer.concat(body.chunks))).toBe(true)
  })

  it('stops writing and lets go when the client disconnects mid-body', async () => {
    responses.length = 0
    await new Promise<void>((resolve, reject) => {
      const outgoing = request(
        `${baseUrl}/large`,
        {headers: {'Accept-Encoding': 'identity'}, agent: false},
        (incoming) => {
          incoming.once('data', () => {
            outgoing.destroy()
            resolve()
          })
        },
      )
      outgoing.on('error', () => undefined)
      outgoing.end()
      outgoing.on('timeout', reject)
    })
    const response = responses[0]
    if (!response) throw new Error('no response')
    for (let wait = 0; wait < 100 && !response.destroyed; wait++) await sleep(10)
    expect(response.destroyed).toBe(true)
    expect(response.writableEnded).toBe(false)
    // Nothing waits on the socket any more: no 'drain' or 'close' listener holds the body.
    expect(response.listenerCount('drain')).toBe(0)
  })
})
