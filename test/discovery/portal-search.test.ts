// The portal's search operation, built from the embedded sample with no socket: a real answer as
// its example and try-it, and none in a static export, which cannot answer queries.
import {describe, expect, it} from 'vitest'
import {sampleSnapshot} from '../helpers/sample.ts'

async function portal(staticExport: boolean): Promise<string> {
  const snapshot = await sampleSnapshot({staticExport})
  return snapshot.site('/docs')?.body.toString('utf8') ?? ''
}

describe("the portal's search", () => {
  it('shows search.json with a Hebrew query whose answer is its example and try-it', async () => {
    const html = await portal(false)
    const section = /<section class="operation" id="op-searchCatalog"[\s\S]*?<\/section>/.exec(html)?.[0] ?? ''
    const example = /data-try="([^"]+)"/.exec(section)?.[1] ?? ''
    expect(example).toMatch(/^\/api\/v1\/search\.json\?q=%D7/)
    const body = /<code class="example-body">([\s\S]*?)<\/code>/.exec(section)?.[1] ?? ''
    expect(body).toMatch(/^\{\n {2}&quot;data&quot;: \[\n/)
    expect(body).toContain('&quot;type&quot;: &quot;')
    expect(body).toContain('&quot;pagination&quot;')
  })

  it('is left out of a static export, which serves files and cannot search', async () => {
    const html = await portal(true)
    expect(html).not.toContain('id="op-searchCatalog"')
    expect(html).not.toMatch(/data-try="[^"]*search\.json/)
  })
})
