// Browser: starts the real app on a loopback port and opens /docs in Debian's headless Chromium
// (driven by playwright-core; `.ci/run` installs the `chromium` package, and so does the test
// when it runs as root without it). Every request the page
// makes is recorded, so the test proves the page works offline. The screenshot is kept in
// test/artifacts/portal.png.
import {mkdir} from 'node:fs/promises'
import {chromium, type Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {problemSchema} from '../../server/api/v1/contract.ts'
import {PROBLEM_STATUSES, problemAnchor} from '../../server/http/problem.ts'
import {ensureChromium} from '../helpers/chromium.ts'
import {startTestServer, type TestServer} from '../helpers/server.ts'

let server: TestServer
let browser: Browser

beforeAll(async () => {
  const executablePath = ensureChromium()
  server = await startTestServer({environment: {CONTACT_EMAIL: 'podcast@codetalks.example'}})
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}, 300_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the developer portal in Chromium', () => {
  it('renders the reference and the prose sections, makes no request beyond its own page, and keeps a screenshot', async () => {
    const page = await browser.newPage({viewport: {width: 1200, height: 900}})
    const requests: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    const consoleErrors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text())
    })

    const response = await page.goto(`${server.baseUrl}/docs`, {waitUntil: 'load'})
    expect(response?.status()).toBe(200)
    expect(await page.title()).toContain('developer portal')
    for (const section of ['quick-start', 'authentication', 'errors', 'rate-limits', 'pagination', 'versioning', 'mcp', 'reference']) {
      expect(await page.locator(`#${section}`).count(), section).toBe(1)
    }
    for (const operationId of ['getServiceIndex', 'listEpisodes', 'getEpisode', 'listMeetups', 'getMeetup', 'listVoices', 'getVoice', 'getEverything']) {
      expect(await page.locator(`#op-${operationId}`).count(), operationId).toBe(1)
    }
    expect(await page.locator('#schema-Episode tr').count()).toBeGreaterThan(15)
    expect(await page.locator('[lang="he"][dir="rtl"]').count()).toBe(1)
    expect(await page.locator('body').innerText()).toContain('podcast@codetalks.example')

    // Problem `type` URIs point at anchors that exist on this page.
    for (const status of PROBLEM_STATUSES) expect(await page.locator(`#${problemAnchor(status)}`).count(), String(status)).toBe(1)
    const problem = problemSchema.parse(await (await fetch(`${server.baseUrl}/api/v1/episodes/missing.json`)).json())
    expect(problem.type).toBe(`http://api.test/docs#${problemAnchor(404)}`)

    await mkdir('test/artifacts', {recursive: true})
    await page.screenshot({path: 'test/artifacts/portal.png', fullPage: false})
    expect(requests).toEqual([`${server.baseUrl}/docs`])
    expect(consoleErrors).toEqual([])
  }, 60_000)
})
