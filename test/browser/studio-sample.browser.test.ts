// Browser and integration: `npm run studio:sample`'s server part (scripts/studio-sample.ts), started
// as the script starts it: the Content Lake stand-in (HTTP/2 over TLS) with the embedded dataset and
// `sanity dev` on loopback ports. Checked over real HTTP, then in Debian's headless Chromium as a
// person's browser opens it (no host mapping: Chromium resolves *.localhost itself; the throwaway
// certificate accepted as the printed step asks), then stopped.
import {createServer as createHttpServer} from 'node:http'
import {connect as connectHttp2} from 'node:http2'
import {readFile} from 'node:fs/promises'
import {createServer} from 'node:net'
import {chromium} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {startStudioSample, type StudioSample} from '../../scripts/studio-sample.ts'
import {ensureChromium} from '../helpers/chromium.ts'
import {freePort} from '../../support/free-port.ts'

const documents = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
const answerSchema = z.object({result: z.array(z.object({title: z.string()}))})
const episodes = documents.filter((document) => document._type === 'episode')

let port: number
let sample: StudioSample
let log = ''

beforeAll(async () => {
  port = await freePort()
  sample = await startStudioSample({port, log: (line) => (log += line)})
}, 240_000)
afterAll(() => sample?.close(), 60_000)

/** A GET to the stand-in over HTTP/2, addressed to the host the Studio's client calls. */
async function askStandIn(path: string): Promise<{protocol: string | false | undefined; status: number; body: string}> {
  const session = connectHttp2(`https://127.0.0.1:${sample.apiPort}`, {rejectUnauthorized: false})
  try {
    const request = session.request({':path': path, ':authority': new URL(sample.apiUrl).host})
    const status = await new Promise<number>((resolve, reject) => {
      request.once('response', (headers) => resolve(Number(headers[':status'])))
      request.once('error', reject)
    })
    let body = ''
    request.setEncoding('utf8')
    for await (const chunk of request) body += String(chunk)
    return {protocol: session.alpnProtocol, status, body}
  } finally {
    session.close()
  }
}

/** Whether something accepts connections on the loopback port. */
const listening = (onPort: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer()
      .once('error', () => resolve(true))
      .listen(onPort, '127.0.0.1', () => probe.close(() => resolve(false)))
  })

describe('npm run studio:sample', () => {
  it("answers the Studio's document-list query over HTTP/2 with the embedded dataset's Hebrew episodes", async () => {
    const query = '*[_type == $__type] | order(publishedAt desc) {_id, title}'
    const search = new URLSearchParams({query, $__type: '"episode"', perspective: 'raw'})
    const {protocol, status, body} = await askStandIn(`/v2025-02-19/data/query/production?${search}`)
    expect(status, log).toBe(200)
    expect(protocol).toBe('h2')
    const titles = answerSchema.parse(JSON.parse(body)).result.map((episode) => episode.title)
    expect(titles.toSorted()).toEqual(episodes.map((episode) => String(episode.title)).toSorted())
    expect(titles.every((title) => /[\u0590-\u05FF]/.test(title))).toBe(true)
    // The page the printed step opens to accept the certificate.
    expect((await askStandIn('/ping')).body).toBe('"PONG"')
  })

  it("serves the Studio's page at the printed address", async () => {
    expect(sample.studioUrl).toBe(`http://localhost:${port}/`)
    const response = await fetch(`http://127.0.0.1:${port}/structure/episodes`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toContain('id="sanity"')
  })

  it('shows the newest episode, a Hebrew title, first in the episode list in Chromium', async () => {
    const browser = await chromium.launch({
      executablePath: ensureChromium(),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    })
    try {
      const page = await (await browser.newContext({ignoreHTTPSErrors: true})).newPage()
      // The dev server compiles the Studio on its first request: under two busy loops the page's
      // load took longer than page.goto's default 30 s. A liveness bound, as for the list below.
      await page.goto(`${sample.studioUrl}structure/episodes`, {timeout: 120_000})
      const headers = page.locator('[data-testid="document-list-pane"] [data-testid="default-preview__header"]')
      await headers.first().waitFor({timeout: 120_000})
      const newest = episodes.toSorted((a, b) => String(b.publishedAt).localeCompare(String(a.publishedAt)))[0]
      expect((await headers.first().innerText()).split('\n')[0]).toBe(String(newest?.title))
    } finally {
      await browser.close()
    }
  }, 180_000)

  it('stops the stand-in and the dev server, freeing both ports', async () => {
    expect(await listening(port)).toBe(true)
    expect(await listening(sample.apiPort)).toBe(true)
    await sample.close()
    expect(await listening(port)).toBe(false)
    expect(await listening(sample.apiPort)).toBe(false)
  }, 60_000)
})

describe('npm run studio:sample on a port in use', () => {
  it('refuses with one line naming the port, rather than printing the other server as the Studio', async () => {
    const other = createHttpServer((_, response) => response.end('another server')).listen(0, '127.0.0.1')
    await new Promise((resolve) => other.once('listening', resolve))
    const address = other.address()
    if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
    try {
      await expect(startStudioSample({port: address.port})).rejects.toThrow(`port ${address.port} is in use`)
    } finally {
      await new Promise((resolve) => other.close(resolve))
    }
  }, 60_000)
})
