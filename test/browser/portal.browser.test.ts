// Browser: starts the real app on a loopback port and opens /docs in Debian's headless Chromium
// (driven by playwright-core; `.ci/run` installs the `chromium` package, and so does the test
// when it runs as root without it). Every request the page makes is recorded, so the test proves
// the page works offline and talks to nothing but its own origin. Screenshots are kept in
// test/artifacts/ (portal.png, portal-try-it.png, portal-phone-dark.png).
import {mkdir} from 'node:fs/promises'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {problemSchema} from '../../catalog/v1/contract.ts'
import {PROBLEM_STATUSES, problemAnchor} from '../../server/http/problem.ts'
import {launchChromium} from '../helpers/chromium.ts'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
let browser: Browser

beforeAll(async () => {
  server = await startTestServer({environment: {CONTACT_EMAIL: 'podcast@codetalks.example'}})
  browser = await launchChromium(['--disable-sync'])
}, 300_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

const TEXT_EXAMPLES: Record<string, RegExp> = {
  'op-getEpisodeTranscriptVtt': /^WEBVTT\n\n00:00:00\.000 --> /,
  'op-getEpisodeTranscriptSrt': /^1\n00:00:00,000 --> /,
}

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
    for (const section of [
      'quick-start',
      'authentication',
      'errors',
      'rate-limits',
      'pagination',
      'versioning',
      'mcp',
      'reference',
    ]) {
      expect(await page.locator(`#${section}`).count(), section).toBe(1)
    }
    for (const operationId of [
      'getServiceIndex',
      'listEpisodes',
      'getEpisode',
      'listMeetups',
      'getMeetup',
      'listVoices',
      'getVoice',
      'getEverything',
      'searchCatalog',
      'getChanges',
      'streamEvents',
    ]) {
      expect(await page.locator(`#op-${operationId}`).count(), operationId).toBe(1)
    }
    expect(await page.locator('#schema-Episode tr').count()).toBeGreaterThan(15)
    expect(await page.locator('[lang="he"][dir="rtl"]').count()).toBe(1)
    expect(await page.locator('body').innerText()).toContain('podcast@codetalks.example')

    // Problem `type` URIs point at anchors that exist on this page.
    for (const status of PROBLEM_STATUSES)
      expect(await page.locator(`#${problemAnchor(status)}`).count(), String(status)).toBe(1)
    const problem = problemSchema.parse(await (await fetch(`${server.baseUrl}/api/v1/episodes/missing.json`)).json())
    expect(problem.type).toBe(`http://api.test/docs#${problemAnchor(404)}`)

    await mkdir('test/artifacts', {recursive: true})
    await page.screenshot({path: 'test/artifacts/portal.png', fullPage: false})
    expect(requests).toEqual([`${server.baseUrl}/docs`])
    expect(consoleErrors).toEqual([])
  }, 60_000)

  it('shows a real example and code for every operation, and try-it calls this origin and shows the answer', async () => {
    const page = await browser.newPage({viewport: {width: 1200, height: 900}})
    const requests: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    const errors: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    page.on('pageerror', (error) => errors.push(String(error)))
    await page.goto(`${server.baseUrl}/docs`, {waitUntil: 'load'})

    // One section for each operation the OpenAPI document describes.
    const openapi = z
      .object({paths: z.record(z.string(), z.record(z.string(), z.unknown()))})
      .parse(await (await fetch(`${server.baseUrl}/api/openapi.json`)).json())
    const operations = page.locator('section.operation')
    expect(await operations.count()).toBe(Object.values(openapi.paths).flatMap((path) => Object.keys(path)).length)
    for (const operation of await operations.all()) {
      // The event stream is not a document: its example is the stream's text, its code curl and EventSource, and a
      // try-it (a fetch that waits for the end) would never answer.
      if ((await operation.getAttribute('id')) === 'op-streamEvents') {
        expect(await operation.locator('.example-body').innerText()).toMatch(/^retry: 3000\nid: [\w-]{32}\n\nid: /)
        expect(await operation.locator('button[data-try]').count()).toBe(0)
        expect(await operation.locator('details:not(.example) pre').count()).toBe(2)
        continue
      }
      // A transcript's WebVTT and SubRip are text, shown as served; every other example is JSON.
      const id = (await operation.getAttribute('id')) ?? ''
      const shape = TEXT_EXAMPLES[id] ?? /^\{\n {2}"/
      expect(await operation.locator('.example-body').innerText(), id).toMatch(shape)
      expect(await operation.locator('button[data-try]').count()).toBe(1)
      expect(await operation.locator('details:not(.example) pre').count()).toBe(3) // curl, JavaScript, Python
    }
    // The example is what the API serves for that URL, from the snapshot the page was built with.
    const url = (await page.getAttribute('#op-getEpisode button[data-try]', 'data-try')) ?? ''
    const served: unknown = await (await fetch(`${server.baseUrl}${url}`)).json()
    expect(JSON.parse(await page.locator('#op-getEpisode .example-body').innerText())).toEqual(served)

    // Try it: the page's own script (allowed by its CSP hash) fetches the URL and shows the answer.
    await page.click('#op-getEpisode button[data-try]')
    // Polled through the locator, never a function string: the page's CSP forbids eval, so a
    // string predicate that is not true at its first check fails with an EvalError.
    await expect
      .poll(async () => (await page.locator('#try-getEpisode').textContent()) ?? '', {timeout: 5000})
      .toMatch(/^HTTP 200/)
    const shown = (await page.locator('#try-getEpisode').innerText()).split('\n\n')
    expect(shown[0]).toMatch(/^HTTP 200\nETag: "[\w-]+"\nRateLimit: "default";r=\d+;t=\d+$/)
    expect(JSON.parse(shown.slice(1).join('\n\n'))).toEqual(served)
    await page.screenshot({path: 'test/artifacts/portal-try-it.png'})

    // Search hides the reference sections that do not mention what is typed.
    await page.fill('#search', 'next_cursor')
    expect(await page.locator('#op-getEpisode').isHidden()).toBe(true)
    expect(await page.locator('#op-listEpisodes').isVisible()).toBe(true)

    expect(requests).toEqual([`${server.baseUrl}/docs`, `${server.baseUrl}${url}`])
    expect(errors).toEqual([])
  }, 60_000)

  it('fits a 390 px phone and follows dark mode', async () => {
    const light = await browser.newPage({viewport: {width: 390, height: 844}, colorScheme: 'light'})
    const dark = await browser.newPage({viewport: {width: 390, height: 844}, colorScheme: 'dark'})
    const background = async (page: typeof light) => {
      await page.goto(`${server.baseUrl}/docs#op-listEpisodes`, {waitUntil: 'load'})
      return String(await page.evaluate('getComputedStyle(document.body).backgroundColor'))
    }
    const [lightBackground, darkBackground] = [await background(light), await background(dark)]
    expect(darkBackground).not.toBe(lightBackground)
    for (const page of [light, dark])
      expect(Number(await page.evaluate('document.documentElement.scrollWidth'))).toBeLessThanOrEqual(390)
    await dark.screenshot({path: 'test/artifacts/portal-phone-dark.png'})
  }, 60_000)

  it.each(['light', 'dark'] as const)(
    "keeps the header's RSS link readable (WCAG AA, 4.5:1) in %s mode",
    async (colorScheme) => {
      const page = await browser.newPage({colorScheme})
      await page.goto(`${server.baseUrl}/docs`, {waitUntil: 'load'})
      const [text = '', background = ''] = z
        .array(z.string())
        .parse(
          await page.evaluate(
            '[getComputedStyle(document.querySelector("header a")).color, getComputedStyle(document.querySelector("header")).backgroundColor]',
          ),
        )
      expect(contrastRatio(text, background), `${text} on ${background}`).toBeGreaterThanOrEqual(4.5)
      await page.close()
    },
  )
})

/** WCAG 2's contrast ratio of two opaque `rgb(r, g, b)` colours. */
function contrastRatio(first: string, second: string): number {
  const luminance = (color: string) => {
    const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((channel) => {
      const value = channel / 255
      return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const [light, dark] = [luminance(first), luminance(second)].sort((a, b) => b - a)
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05)
}
