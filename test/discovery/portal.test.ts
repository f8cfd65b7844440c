// The developer portal's error reference, built from the embedded sample with no socket: every
// listed status has its advice, and the limits it quotes are the server's own.
import {describe, expect, it} from 'vitest'
import {PROBLEM_STATUSES, problemAnchor} from '../../server/http/problem.ts'
import {DEFAULT_LIMITS} from '../../server/http/server.ts'
import {sampleSnapshot} from '../helpers/sample.ts'

async function portal(staticExport: boolean): Promise<string> {
  const snapshot = await sampleSnapshot({staticExport})
  return snapshot.site('/docs')?.body.toString('utf8') ?? ''
}

const adviceOf = (html: string, status: number) =>
  new RegExp(`<section id="${problemAnchor(status)}"><h3>[^<]*</h3><p>(.*?)</p></section>`).exec(html)?.[1]

describe("the portal's errors", () => {
  it('gives every listed status its advice, on the origin and in the static export', async () => {
    for (const staticExport of [false, true]) {
      const html = await portal(staticExport)
      const listed = PROBLEM_STATUSES.filter((status) => html.includes(`id="${problemAnchor(status)}"`))
      expect(listed.length).toBeGreaterThan(10)
      expect(listed.filter((status) => !adviceOf(html, status))).toEqual([])
    }
  })

  it("quotes the server's own timeouts in the 408 entry", async () => {
    const advice = adviceOf(await portal(false), 408)
    expect(advice).toContain(`headers within ${DEFAULT_LIMITS.headersTimeoutMs / 1000} seconds`)
    expect(advice).toContain(`the whole request within ${DEFAULT_LIMITS.requestTimeoutMs / 1000} seconds`)
    expect(DEFAULT_LIMITS.requestTimeoutMs).toBe(15_000)
  })
})

describe("the portal's chapters", () => {
  it("shows the chapters endpoint with a chaptered episode's document as its example and try-it", async () => {
    const html = await portal(false)
    const section = /<section class="operation" id="op-getEpisodeChapters"[\s\S]*?<\/section>/.exec(html)?.[0] ?? ''
    const example = /data-try="(\/api\/v1\/episodes\/[a-z0-9-]+\/chapters\.json)"/.exec(section)?.[1]
    expect(example).toBeDefined()
    const body = /<code class="example-body">([\s\S]*?)<\/code>/.exec(section)?.[1] ?? ''
    expect(body).toContain('&quot;version&quot;: &quot;1.2.0&quot;')
    expect(body).toContain('&quot;startTime&quot;: 0')
    expect(body).toMatch(/&quot;title&quot;: &quot;[\u0590-\u05ff]/)
  })
})
