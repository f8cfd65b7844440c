// Integration over real HTTP: a flood of 100,000 distinct valid cursors of 1,000 characters, all
// landing on one position of their list (the attack: every one a new page to the old cache, keyed
// by the cursor's text), leaves the memory the server holds within the page cache's bound plus 64 MB.
// Memory is measured live, after full collections, in this process: resident memory moves by tens
// of MB with the allocator on a busy machine, which would hide the bound or fail at random.
import {connect} from 'node:net'
import {describe, expect, it} from 'vitest'
import {encodeCursor} from '../../server/api/v1/cursor.ts'
import {collectGarbage} from '../helpers/gc.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

const PAGE_CACHE_MEGABYTES = 32
const FLOOD = 100_000
const CONNECTIONS = 8
const PIPELINED = 100
const MARGIN = 64 * 1024 * 1024

const liveBytes = async (server: TestServer) => {
  server.logLines.length = 0 // the test's own copy of the request log
  await collectGarbage()
  const {heapUsed, external} = process.memoryUsage()
  return heapUsed + external
}

const collections = ['voices', 'episodes', 'meetups'] as const
const floodTarget = (n: number) =>
  `/api/v1/${collections[n % 3] ?? 'voices'}.json?cursor=${encodeCursor(['\u05ea'.repeat(180), `${n}-${'z'.repeat(330)}`])}`

/** Sends `count` GETs on one connection, `PIPELINED` at a time, and returns their status codes. */
async function pipelined(port: number, first: number, count: number): Promise<number[]> {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
  const statuses: number[] = []
  let text = ''
  let waiting: (() => void) | undefined
  // How many answers the batch in flight completes: a chunk that completes none (one answer of an
  // episodes page spans several) must not count as the batch answered.
  let expected = 0
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1')
    // Every answer is a head and a Content-Length body; only the status lines are kept.
    for (
      let match = /HTTP\/1\.1 (\d{3}) [^]*?\r\ncontent-length: (\d+)\r\n[^]*?\r\n\r\n/i.exec(text);
      match;
      match = /HTTP\/1\.1 (\d{3}) [^]*?\r\ncontent-length: (\d+)\r\n[^]*?\r\n\r\n/i.exec(text)
    ) {
      const end = match.index + match[0].length + Number(match[2])
      if (text.length < end) break
      statuses.push(Number(match[1]))
      text = text.slice(end)
    }
    if (statuses.length >= expected) waiting?.()
  })
  for (let sent = 0; sent < count; sent += PIPELINED) {
    const batch = Array.from(
      {length: Math.min(PIPELINED, count - sent)},
      (_, index) => `GET ${floodTarget(first + sent + index)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    )
    expected = sent + batch.length
    const done = new Promise<void>((resolve) => (waiting = resolve))
    socket.write(batch.join(''))
    await done
  }
  socket.destroy()
  return statuses
}

describe('a flood of distinct cursors', () => {
  it('keeps what the server holds within the page-cache bound plus 64 MB', {timeout: 120_000}, async () => {
    const server = await startTestServer({
      environment: {RATE_LIMIT_QUOTA: '0', PAGE_CACHE_MEGABYTES: String(PAGE_CACHE_MEGABYTES)},
      observed: true,
    })
    try {
      const port = Number(new URL(server.baseUrl).port)
      await pipelined(port, 0, 300)
      const baseline = await liveBytes(server)
      const perConnection = FLOOD / CONNECTIONS
      const statuses = (
        await Promise.all(
          Array.from({length: CONNECTIONS}, (_, index) => pipelined(port, 300 + index * perConnection, perConnection)),
        )
      ).flat()
      expect(statuses).toHaveLength(FLOOD)
      expect(new Set(statuses)).toEqual(new Set([200]))
      const cacheBytes = Number(
        /^catalog_page_cache_bytes (\d+)/m.exec(await (await fetch(`${server.baseUrl}/metrics`)).text())?.[1],
      )
      // Every one of those cursors lands on one position of its list (past the last voice, before the
      // newest episode and meetup): one page per collection, shared.
      expect(cacheBytes).toBeLessThan(1024 * 1024)
      const grown = (await liveBytes(server)) - baseline
      expect(grown).toBeLessThan(PAGE_CACHE_MEGABYTES * 1024 * 1024 + MARGIN)
    } finally {
      await server.close()
    }
  })
})
