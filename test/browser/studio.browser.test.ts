// Browser: the Studio as this repository builds it (`sanity build`, no project id), opened in
// Debian's headless Chromium against a local stand-in of Sanity's API over HTTP/2
// (test/helpers/content-lake-stand-in.ts) holding the sample dataset. Every host but the stand-in
// is unresolvable, so the test runs offline. Screenshots are kept in test/artifacts/ (studio-*.png).
// Editing (drafts, publishing, the webhook to a running server) is not exercised yet.
import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {chromium, type Browser, type Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {voiceOrder} from '../../server/api/v1/order.ts'
import {ensureChromium} from '../helpers/chromium.ts'
import {startContentLakeStandIn, STUDIO_HOST} from '../helpers/content-lake-stand-in.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../helpers/server.ts'

const slugSchema = z.object({current: z.string()})
const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
let studioDirectory: string
let lake: Awaited<ReturnType<typeof startContentLakeStandIn>>
let browser: Browser
let page: Page
let server: TestServer
const PROJECT_ID = 'embedded' // the project the sample's image assets name, as the server's default

beforeAll(async () => {
  const executablePath = ensureChromium()
  // The API server the Studio's "API" view describes, over the same sample.
  server = await startTestServer()
  // Built from the tree as it is, never a stale studio/dist, and configured as that server is.
  studioDirectory = await mkdtemp(join(tmpdir(), 'studio-build-'))
  const studioEnvironment = {
    SANITY_TELEMETRY_DISABLED: '1',
    SANITY_STUDIO_PROJECT_ID: PROJECT_ID,
    SANITY_STUDIO_DATASET: 'production',
    SANITY_STUDIO_API_BASE_URL: server.config.publicBaseUrl,
    SANITY_STUDIO_SITE_URL: server.config.siteUrl,
  }
  execFileSync(process.execPath, ['node_modules/@sanity/cli/bin/run.js', 'build', studioDirectory, '--yes'], {stdio: 'ignore', env: {...process.env, ...studioEnvironment}})
  lake = await startContentLakeStandIn({studioDirectory, projectId: PROJECT_ID, documents})
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', `--host-resolver-rules=${lake.hostResolverRules}`],
  })
  page = await (await browser.newContext({ignoreHTTPSErrors: true, viewport: {width: 1400, height: 900}})).newPage()
  await mkdir('test/artifacts', {recursive: true})
}, 300_000)
afterAll(async () => {
  await browser?.close()
  await lake?.close()
  await server?.close()
  if (studioDirectory) await rm(studioDirectory, {recursive: true, force: true})
})

describe('the Studio in Chromium', () => {
  it('opens on the catalog, with the plugin\'s lists titled in Hebrew', async () => {
    await page.goto(`https://${STUDIO_HOST}/structure`)
    const catalog = page.locator('[data-testid="structure-tool-list-pane"]').first()
    await catalog.getByText('קטלוג', {exact: true}).waitFor({timeout: 30_000})
    for (const title of ['פרקים', 'הרצאות במיטאפים', 'קולות']) expect(await catalog.locator(`[data-testid="pane-item-${title}"]`).count(), title).toBe(1)
    await page.screenshot({path: 'test/artifacts/studio-structure.png'})
  }, 60_000)

  it('lists the episodes newest first, drafts among them', async () => {
    await page.goto(`https://${STUDIO_HOST}/structure/episodes`)
    const headers = page.locator('[data-testid="document-list-pane"] [data-testid="default-preview__header"]')
    await headers.first().waitFor({timeout: 30_000})
    const newest = documents.filter((document) => document._type === 'episode').toSorted((a, b) => String(b.publishedAt).localeCompare(String(a.publishedAt)))[0]
    expect((await headers.first().innerText()).split('\n')[0]).toBe(String(newest?.title))
    await page.screenshot({path: 'test/artifacts/studio-episodes.png'})
  }, 60_000)

  it('lists the voices in the API\'s order (a Hebrew collator), not by code point', async () => {
    await page.goto(`https://${STUDIO_HOST}/structure/voices`)
    // What an editor sees (a voice's draft where it has one), in the order the API lists voices.
    const visible = new Map<string, {name: string; slug: string}>()
    for (const voice of documents.filter((document) => document._type === 'voice').sort((a, b) => Number(a._id.startsWith('drafts.')) - Number(b._id.startsWith('drafts.')))) {
      visible.set(voice._id.replace(/^drafts\./, ''), {name: String(voice.name), slug: slugSchema.safeParse(voice.slug).data?.current ?? ''})
    }
    const expected = [...visible.values()].sort((a, b) => voiceOrder.compare([a.name, a.slug], [b.name, b.slug])).map((voice) => voice.name)
    const headers = page.locator('[data-testid="structure-tool-list-pane"]').nth(1).locator('[data-testid="default-preview__header"]')
    await headers.first().waitFor({timeout: 30_000})
    // The list is virtualised: the voices on screen are the first ones, in order.
    const shown = (await headers.allInnerTexts()).map((text) => text.split('\n')[0])
    expect(shown.length).toBeGreaterThan(10)
    expect(shown).toEqual(expected.slice(0, shown.length))
    const byCodePoint = [...expected].sort((a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0))
    expect(shown).not.toEqual(byCodePoint.slice(0, shown.length))
    await page.screenshot({path: 'test/artifacts/studio-voices.png'})
  }, 60_000)

  it('shows, in the API view of an episode, exactly what GET serves for it', async () => {
    const episode = documents.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.') && !documents.some((other) => other._id === `drafts.${document._id}`))
    if (!episode) throw new Error('no published episode without a draft in the sample')
    await page.goto(`https://${STUDIO_HOST}/structure/episodes;${episode._id}`)
    await page.getByRole('tab', {name: 'API'}).click({timeout: 30_000})
    const code = page.locator('pre code').first()
    await code.waitFor({timeout: 30_000})
    const shown: unknown = JSON.parse(await code.innerText())
    const slug = slugSchema.parse(episode.slug).current
    const served: unknown = await (await fetch(`${server.baseUrl}/api/v1/episodes/${slug}.json`)).json()
    expect(shown).toEqual(served)
    await page.screenshot({path: 'test/artifacts/studio-api-view.png'})
  }, 60_000)
})
