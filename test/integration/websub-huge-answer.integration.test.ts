// Integration: `npm start`'s own process with WEBSUB_HUB pointing at a local hub stand-in that
// answers every ping 500 with a 200 MB body, streamed (never held by the test). An edit of the
// dataset file makes the server ping the hub; the server's resident memory, read from
// /proc/<pid>/status, must stay near where it was before the ping, and the hub must see its
// connection dropped long before its body is sent.
import {copyFile, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {answerHugely, HUGE_ANSWER_BYTES, type HugeAnswer} from '../helpers/huge-answer.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const MB = 1024 * 1024

let folder: string
let hub: Server
let pings: HugeAnswer[]
let server: MainProcess

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-huge-hub-'))
  await copyFile(SAMPLE_DATASET, join(folder, 'catalog.ndjson'))
  pings = []
  hub = createServer((request, response) => {
    request.resume()
    pings.push(answerHugely(response, 500, 'text/plain'))
  })
  await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve))
  const address = hub.address()
  if (address === null || typeof address === 'string') throw new Error('the hub stand-in has no port')
  server = await startMainProcess({
    PORT: '0',
    PUBLIC_BASE_URL: 'http://api.test',
    DATASET_FILE: join(folder, 'catalog.ndjson'),
    RECONCILE_INTERVAL_SECONDS: '0',
    WEBSUB_HUB: `http://127.0.0.1:${address.port}/hub`,
  })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  hub?.closeAllConnections()
  hub?.close()
  await rm(folder, {recursive: true, force: true})
})

/** A line of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: the highest it has been). */
async function memory(field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${server.pid}/status`, 'utf8')
  const kilobytes = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1]
  if (kilobytes === undefined) throw new Error(`no ${field} in /proc/${server.pid}/status`)
  return Number(kilobytes) * 1024
}

it(
  'reads a hub answer of 200 MB only up to a few KB: resident memory stays within 50 MB of its level before the ping',
  {timeout: 90_000},
  async () => {
    // The process settles after its first build; the feed is built once asked for, so ask before measuring.
    expect((await fetch(`${server.baseUrl}/feed.xml`)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const before = await memory('VmRSS')
    const peakBefore = await memory('VmHWM')

    const file = join(folder, 'catalog.ndjson')
    const documents = parseNdjson(await readFile(file, 'utf8'), file)
    const episode = documents.find(
      (document) => document._type === 'episode' && document['audioUrl'] && !document._id.startsWith('drafts.'),
    )
    expect(episode).toBeDefined()
    await writeFile(
      file,
      `${documents.map((document) => JSON.stringify(document === episode ? {...document, title: 'כותרת שמעירה את ה-hub', _updatedAt: '2030-01-01T00:00:00Z'} : document)).join('\n')}\n`,
    )

    // Two attempts (the first retry comes a second after the first failure), sampled as they run.
    let highest = before
    const deadline = performance.now() + 60_000
    while (!(pings.length >= 2 && pings.slice(0, 2).every((ping) => ping.closed)) && performance.now() < deadline) {
      highest = Math.max(highest, await memory('VmRSS'))
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    const peakAfter = await memory('VmHWM')
    // A new high-water mark is a peak the sampling may have missed.
    if (peakAfter > peakBefore) highest = Math.max(highest, peakAfter)
    console.info(
      `websub-huge-answer: RSS ${(before / MB).toFixed(0)} MB before the ping, highest ${(highest / MB).toFixed(0)} MB during it; the hub sent ${pings.map((ping) => `${(ping.sent / MB).toFixed(1)} MB`).join(', ')} of ${HUGE_ANSWER_BYTES / MB} MB`,
    )

    expect(highest - before).toBeLessThan(50 * MB)
    expect(pings.length).toBeGreaterThanOrEqual(2)
    for (const ping of pings.slice(0, 2))
      expect(ping.closed && ping.sent < 50 * MB, `${ping.sent} bytes sent`).toBe(true)
    expect(await (await fetch(`${server.baseUrl}/feed.xml`)).text()).toContain('כותרת שמעירה את ה-hub')
  },
)
