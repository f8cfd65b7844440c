// The feed of a catalog too large to be joined into one buffer (12k documents, ~8k items): every
// item restates the show's hosts, and their bytes are held once, shared by all items.
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {growDataset} from '../../support/grow-dataset.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {ChunkedBody} from '../../server/snapshot/chunked-body.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

const documents = growDataset(parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET), 12_000)
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({source: createEmbeddedSource('a grown catalog', async () => documents)})
}, 60_000)
afterAll(() => server.close())

describe("the feed's hosts", () => {
  it('are one buffer that every item points at, and every item served restates them', async () => {
    const served = await (await fetch(`${server.baseUrl}/feed.xml`, {headers: {'accept-encoding': 'identity'}})).text()
    const items = served.split('<item>').slice(1)
    const body = server.store.current().site('/feed.xml')?.body
    if (!(body instanceof ChunkedBody)) throw new Error('the feed is not held as chunks')
    expect(body.whole).toBeUndefined() // too large to be joined: the items' own bytes are what is held
    const uses = new Map<Buffer, number>()
    for (const chunk of body.chunks) uses.set(chunk, (uses.get(chunk) ?? 0) + 1)
    const shared = [...uses].filter(([, count]) => count > 1)
    expect(shared).toHaveLength(1)
    const [hostsBytes, count] = shared[0] ?? [Buffer.alloc(0), 0]
    expect(count).toBe(items.length)
    const hostsXml = hostsBytes.toString('utf8')
    expect(hostsXml).toMatch(/^<podcast:person role="host"[^]*<\/podcast:person>$/)
    expect(hostsXml).not.toContain('role="guest"')
    expect(items.every((item) => item.includes(hostsXml))).toBe(true)
    expect(Buffer.concat(body.chunks).toString('utf8')).toBe(served)
  }, 60_000)
})
