// The Fastly and Cloudflare adapters and the durable purge queue against local HTTP stand-ins of
// the providers' purge APIs, over real HTTP on loopback.
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {cloudflareAdapter} from '../../server/edge/cloudflare-adapter.ts'
import {createEdgePurging} from '../../server/edge/edge-purging.ts'
import {fastlyAdapter} from '../../server/edge/fastly-adapter.ts'
import {type PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {PurgeQueue} from '../../server/edge/purge-queue.ts'
import {loadConfig} from '../../server/config.ts'
import {startTestServer} from '../../support/server.ts'
import {PurgeFailure} from '../../server/errors.ts'

interface Recorded {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: unknown
  at: number
}
let standIn: Server
let baseUrl: string
let recorded: Recorded[]
let answer: (request: Recorded, response: ServerResponse) => void
let directory: string

beforeEach(async () => {
  recorded = []
  answer = (_request, response) =>
    response.writeHead(200, {'content-type': 'application/json'}).end('{"success":true,"errors":[]}')
  standIn = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
        at: Date.now(),
      }
      recorded.push(entry)
      answer(entry, response)
    })
  }).listen(0, '127.0.0.1')
  await new Promise((resolve) => standIn.once('listening', resolve))
  const address = standIn.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  baseUrl = `http://127.0.0.1:${address.port}`
  directory = await mkdtemp(join(tmpdir(), 'purge-queue-'))
})
afterEach(async () => {
  await new Promise((resolve) => standIn.close(resolve))
  await rm(directory, {recursive: true, force: true})
})

const keys = (count: number) => Array.from({length: count}, (_, index) => `episodes/ep-${index}`)

describe('Fastly', () => {
  it('purges by surrogate key in batches of 256, with the API token and the soft-purge header when asked', async () => {
    await fastlyAdapter({
      apiUrl: baseUrl,
      token: 'fastly-token',
      serviceId: 'SU1Z0isxPaozGVKXdv0eY',
      softPurge: true,
    }).purge(keys(600))
    expect(recorded.map((request) => [request.method, request.url])).toEqual(
      Array(3).fill(['POST', '/service/SU1Z0isxPaozGVKXdv0eY/purge']),
    )
    expect(recorded.map((request) => (request.body as {surrogate_keys: string[]}).surrogate_keys.length)).toEqual([
      256, 256, 88,
    ])
    expect(recorded.flatMap((request) => (request.body as {surrogate_keys: string[]}).surrogate_keys)).toEqual(
      keys(600),
    )
    expect(recorded[0]?.headers['fastly-key']).toBe('fastly-token')
    expect(recorded[0]?.headers['fastly-soft-purge']).toBe('1')
  })

  it('a hard purge sends no soft-purge header; a 401 is a permanent failure', async () => {
    answer = (_request, response) =>
      response
        .writeHead(401, {'content-type': 'application/json'})
        .end('{"msg":"Provided credentials are missing or invalid"}')
    const failure = await fastlyAdapter({apiUrl: baseUrl, token: 'wrong', serviceId: 'abc', softPurge: false})
      .purge(['all'])
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(PurgeFailure)
    expect(failure).toMatchObject({permanent: true})
    expect(recorded[0]?.headers['fastly-soft-purge']).toBeUndefined()
  })
})

describe('Cloudflare', () => {
  const zoneId = '023e105f4ecef8ad9ca31a8372d0c353'
  it('purges by cache tag, 100 a call, with a bearer token', async () => {
    await cloudflareAdapter({apiUrl: baseUrl, token: 'cf-token', zoneId}).purge(keys(250))
    expect(recorded.map((request) => request.url)).toEqual(Array(3).fill(`/zones/${zoneId}/purge_cache`))
    expect(recorded.map((request) => (request.body as {tags: string[]}).tags.length)).toEqual([100, 100, 50])
    expect(recorded[0]?.headers.authorization).toBe('Bearer cf-token')
  })

  it('an answer of 200 with success: false is a failure', async () => {
    answer = (_request, response) =>
      response
        .writeHead(200, {'content-type': 'application/json'})
        .end('{"success":false,"errors":[{"code":1134,"message":"Tag purge is not available"}]}')
    await expect(cloudflareAdapter({apiUrl: baseUrl, token: 'cf-token', zoneId}).purge(['all'])).rejects.toThrow(
      /1134 Tag purge is not available/,
    )
  })

  it('the queue waits as long as a 429 Retry-After asks, then purges', async () => {
    let calls = 0
    answer = (_request, response) => {
      calls += 1
      if (calls === 1)
        response
          .writeHead(429, {'retry-after': '1', 'content-type': 'application/json'})
          .end('{"success":false,"errors":[{"code":971,"message":"rate limited"}]}')
      else response.writeHead(200, {'content-type': 'application/json'}).end('{"success":true,"errors":[]}')
    }
    const queue = new PurgeQueue({
      adapter: cloudflareAdapter({apiUrl: baseUrl, token: 'cf-token', zoneId}),
      maxKeys: 100,
      retry: {initialDelayMs: 10, maxDelayMs: 20},
    })
    queue.enqueue(['voices'], 'v2')
    await queue.drained()
    expect(recorded).toHaveLength(2)
    expect((recorded[1]?.at ?? 0) - (recorded[0]?.at ?? 0)).toBeGreaterThanOrEqual(1000)
    expect(queue.status()).toMatchObject({depth: 0, lastPurgedVersion: 'v2', purgesSent: 1, purgesFailed: 1})
    queue.close()
  })
})

describe('the durable purge queue', () => {
  const failing: PurgeAdapter = {
    provider: 'test',
    purge: () => Promise.reject(new PurgeFailure('HTTP 401', {permanent: true})),
  }

  it('notes an accepted change on disk before it returns, so a crash before the purge is known after a restart', async () => {
    const queue = new PurgeQueue({adapter: failing, directory, maxKeys: 100})
    queue.changeAccepted()
    const onDisk = JSON.parse(await readFile(join(directory, 'purge-queue.json'), 'utf8'))
    expect(onDisk.unplannedSince).toEqual(expect.any(Number))
    queue.close()
    expect(new PurgeQueue({adapter: failing, directory, maxKeys: 100}).knownPurgedVersion()).toBeNull()
  })

  it('collapses more waiting keys than its bound into the global key, and keeps at most 20 dead letters', async () => {
    const queue = new PurgeQueue({adapter: failing, directory, maxKeys: 16})
    queue.enqueue(keys(17), 'v1')
    await queue.drained()
    expect(queue.status().deadLetters.at(-1)).toMatchObject({keys: ['catalog'], keyCount: 1})
    for (let round = 0; round < 25; round += 1) {
      queue.enqueue([`voices/v-${round}`], `v${round}`)
      await queue.drained()
    }
    expect(queue.status().deadLetters).toHaveLength(20)
    expect(queue.status().deadLetters.at(-1)?.keys).toEqual(['voices/v-24'])
    queue.close()
  })

  it('on start, purges everything when the file does not say what the edge holds, and nothing when it holds this version', async () => {
    const sent: string[][] = []
    const adapter: PurgeAdapter = {provider: 'test', purge: async (purged) => void sent.push([...purged])}
    const config = loadConfig({
      CDN_PURGE: 'cloudflare',
      CLOUDFLARE_API_TOKEN: 'cf-token',
      CLOUDFLARE_ZONE_ID: '023e105f4ecef8ad9ca31a8372d0c353',
    }).edge
    if (!config) throw new Error('expected an edge configuration')
    const origin = await startTestServer({
      environment: {
        CDN_PURGE: 'cloudflare',
        CLOUDFLARE_API_TOKEN: 'cf-token',
        CLOUDFLARE_ZONE_ID: '023e105f4ecef8ad9ca31a8372d0c353',
      },
      edge: {adapter},
    })
    const version = origin.store.current().version
    await origin.close()
    const startWith = async (file: object | undefined) => {
      sent.length = 0
      if (file) await writeFile(join(directory, 'purge-queue.json'), JSON.stringify(file))
      else await rm(join(directory, 'purge-queue.json'), {force: true})
      const purging = createEdgePurging({config, directory, adapter})
      purging.snapshotServed({snapshot: origin.store.current()}, new Date())
      await purging.drained()
      purging.close()
      return [...sent]
    }
    const state = {
      keys: [],
      oldestAt: null,
      unplannedSince: null,
      lastPurgedVersion: version,
      pendingVersion: version,
      deadLetters: [],
    }
    expect(await startWith(undefined)).toEqual([['catalog']])
    expect(await startWith({...state, lastPurgedVersion: 'an older version'})).toEqual([['catalog']])
    expect(await startWith({...state, unplannedSince: Date.now()})).toEqual([['catalog']])
    expect(await startWith(state)).toEqual([])
  })
})
