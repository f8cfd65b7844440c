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
import {SAMPLE_DATASET} from '../helpers/server.ts'

const slugSchema = z.object({current: z.string()})
const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
let studioDirectory: string
let lake: Awaited<ReturnType<typeof startContentLakeStandIn>>
let browser: Browser
let page: Page

beforeAll(async () => {
  const executablePath = ensureChromium()
  // Built from the tree as it is, never a stale studio/dist.
  studioDirectory = await mkdtemp(join(tmpdir(), 'studio-build-'))
  execFileSync(process.execPath, ['node_modules/@sanity/cli/bin/run.js', 'build', studioDirectory, '--yes'], {stdio: 'ignore', env: {...process.env, SANITY_TELEMETRY_DISABLED: '1'}})
  lake = await startContentLakeStandIn({studioDirectory, documents})
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
})
