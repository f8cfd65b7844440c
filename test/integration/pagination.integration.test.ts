// Integration: real app on a loopback port; the content is the sample dataset held in memory so
// a test can publish a document between two page requests and rebuild the snapshot.
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {episodeSchema, listEnvelope, voiceSchema} from '../../catalog/v1/contract.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import type {z} from 'zod'
import {episode} from '../fixtures/documents.ts'
import {readContract, readProblem} from '../helpers/contract.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
let documents: SanityDocument[]
const episodes = listEnvelope(episodeSchema)

beforeAll(async () => {
  documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  server = await startTestServer({source: createEmbeddedSource('in-memory sample', async () => documents)})
})
afterAll(() => server.close())

/** Follows `next` links from a first page; `next` is absolute and names the public base URL. */
async function walk(firstPath: string) {
  const pages = []
  let url: string | null = `${server.baseUrl}${firstPath}`
  while (url) {
    const page: z.infer<typeof episodes> = await readContract(await fetch(url), episodes)
    pages.push(page)
    url = page.pagination.next && page.pagination.next.replace('http://api.test', server.baseUrl)
  }
  return pages
}

describe('pagination', () => {
  it('walks every episode with a small limit, in list order, without gaps or repeats', async () => {
    const whole = await readContract(await fetch(`${server.baseUrl}/api/v1/episodes.json`), episodes)
    const pages = await walk('/api/v1/episodes.json?limit=7')
    expect(pages.length).toBe(Math.ceil(whole.data.length / 7))
    expect(pages.flatMap((page) => page.data)).toEqual(whole.data)
    for (const [index, page] of pages.entries()) {
      const last = index === pages.length - 1
      expect(page.pagination).toMatchObject({
        limit: 7,
        total: whole.data.length,
        has_more: !last,
        count: page.data.length,
      })
      expect(page.pagination.next_cursor === null).toBe(last)
      if (!last)
        expect(page.pagination.next).toMatch(
          /^http:\/\/api\.test\/api\/v1\/episodes\.json\?limit=7&cursor=[A-Za-z0-9_-]+$/,
        )
    }
  })

  it('walks voices in Hebrew order with limit 1', async () => {
    const whole = await readContract(await fetch(`${server.baseUrl}/api/v1/voices.json`), listEnvelope(voiceSchema))
    const seen = []
    let url: string | null = `${server.baseUrl}/api/v1/voices.json?limit=1`
    while (url) {
      const page: z.infer<ReturnType<typeof listEnvelope<typeof voiceSchema>>> = await readContract(
        await fetch(url),
        listEnvelope(voiceSchema),
      )
      seen.push(...page.data)
      url = page.pagination.next && page.pagination.next.replace('http://api.test', server.baseUrl)
    }
    expect(seen).toEqual(whole.data)
  })

  it('accepts the default limit explicitly and serves the pre-built page for it', async () => {
    const [implicit, explicit] = await Promise.all([
      fetch(`${server.baseUrl}/api/v1/episodes.json`),
      fetch(`${server.baseUrl}/api/v1/episodes.json?limit=100&utm_source=test`),
    ])
    expect(explicit.headers.get('etag')).toBe(implicit.headers.get('etag'))
  })

  it('gives later pages their own validators and answers their conditional requests', async () => {
    const [first] = await walk('/api/v1/episodes.json?limit=10')
    const next = first?.pagination.next?.replace('http://api.test', server.baseUrl) ?? ''
    const second = await fetch(next)
    const etag = second.headers.get('etag') ?? ''
    expect(etag).toMatch(/^"/)
    expect((await fetch(next, {headers: {'If-None-Match': etag}})).status).toBe(304)
  })

  it('keeps a walk correct when an episode is published between two page requests', async () => {
    const first = await readContract(await fetch(`${server.baseUrl}/api/v1/episodes.json?limit=5`), episodes)
    documents = [
      ...documents,
      episode('ep-99-fresh', {_updatedAt: new Date().toISOString(), publishedAt: '2026-10-01'}),
    ]
    await server.store.refresh()
    const nextUrl = first.pagination.next?.replace('http://api.test', server.baseUrl) ?? ''
    const second = await readContract(await fetch(nextUrl), episodes)
    const before = await readContract(await fetch(`${server.baseUrl}/api/v1/episodes.json`), episodes)
    expect(before.data[0]?.slug).toBe('ep-99-fresh')
    // The second page continues after the last episode of the first: nothing repeated, nothing skipped.
    expect(second.data.map((episode) => episode.slug)).toEqual(before.data.slice(6, 11).map((episode) => episode.slug))
    expect(second.pagination.total).toBe(first.pagination.total + 1)
  })

  it('rejects a cursor whose key is well-formed but of the wrong shape', async () => {
    const forged = Buffer.from(JSON.stringify([1, 5, 'x'])).toString('base64url')
    await readProblem(await fetch(`${server.baseUrl}/api/v1/episodes.json?cursor=${forged}`), 400)
  })
})
