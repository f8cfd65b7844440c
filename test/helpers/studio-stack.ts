import {execFileSync} from 'node:child_process'
import {mkdir, mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Page, Request} from 'playwright-core'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {launchChromium} from './chromium.ts'
import {startContentLakeStandIn, type ContentLakeStandIn} from '../../support/content-lake-stand-in.ts'
import type {Delivery} from '../../support/content-lake-webhook.ts'
import {startMainProcess, type MainProcess} from './main-process.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const PROJECT_ID = 'embedded' // the project the sample's image assets name, as the server's default
// The server and the Studio's API view are configured alike, so their documents compare byte for byte.
const PUBLIC_BASE_URL = 'https://api.codetalks.test'
const SITE_URL = 'https://codetalks.test'
const WEBHOOK_SECRET = 'the-stand-in-signs-with-this'

export interface StudioStack {
  lake: ContentLakeStandIn
  server: MainProcess
  deliveries: Delivery[]
  page: Page
  /**
   * For a failed test: prints what the page said on its console, which of its requests failed and
   * which are still unanswered, and leaves the page as it was in test/artifacts/failed-<file>-<test>.png.
   */
  reportFailure(file: string, test: string): Promise<void>
  close(): Promise<void>
}

/**
 * The Studio as this repository builds it (`sanity build`), opened in Debian's headless Chromium
 * against the Content Lake stand-in (support/content-lake-stand-in.ts, over HTTP/2), which
 * sends Sanity's signed webhook on each publish to the API server, run as `npm start` runs it with
 * its Sanity source reading the same dataset. Every host but the stand-in is unresolvable.
 */
export async function startStudioStack(): Promise<StudioStack> {
  const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
  // Built from the tree as it is, never a stale studio/dist, and configured as the server is.
  const studioDirectory = await mkdtemp(join(tmpdir(), 'studio-build-'))
  execFileSync(process.execPath, ['node_modules/@sanity/cli/bin/run.js', 'build', studioDirectory, '--yes'], {
    stdio: 'ignore',
    env: {
      ...process.env,
      SANITY_TELEMETRY_DISABLED: '1',
      SANITY_STUDIO_PROJECT_ID: PROJECT_ID,
      SANITY_STUDIO_DATASET: 'production',
      SANITY_STUDIO_API_BASE_URL: PUBLIC_BASE_URL,
      SANITY_STUDIO_SITE_URL: SITE_URL,
    },
  })
  const lake = await startContentLakeStandIn({studioDirectory, projectId: PROJECT_ID, documents})
  const queryApi = await startSanityStandIn(() => lake.dataset.all(), {dataset: 'production'})
  // The operator's server, as `npm start` runs it against Sanity; only webhooks bring changes.
  const server = await startMainProcess({
    PORT: '0',
    PUBLIC_BASE_URL,
    SITE_URL,
    SANITY_PROJECT_ID: PROJECT_ID,
    SANITY_API_HOST: queryApi.apiHost,
    SANITY_WEBHOOK_SECRET: WEBHOOK_SECRET,
    RECONCILE_INTERVAL_SECONDS: '0',
  })
  const deliveries = lake.sendWebhooks({
    url: `${server.baseUrl}/webhooks/sanity`,
    secret: WEBHOOK_SECRET,
    filter: '_type in ["episode", "meetup", "voice"]',
    projection: '{_id, _type}',
  })
  const browser = await launchChromium([`--host-resolver-rules=${lake.hostResolverRules}`])
  const page = await (
    await browser.newContext({ignoreHTTPSErrors: true, viewport: {width: 1400, height: 900}})
  ).newPage()
  // The latest distinct lines only: a Studio left open logs without end.
  const pageLog: string[] = []
  const note = (line: string) => !pageLog.includes(line) && pageLog.push(line) > 100 && pageLog.shift()
  const pending = new Map<Request, number>()
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') note(`${message.type()}: ${message.text()}`)
  })
  page.on('request', (request) => pending.set(request, performance.now()))
  page.on('requestfinished', (request) => pending.delete(request))
  page.on('requestfailed', (request) => {
    pending.delete(request)
    note(`failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`)
  })
  await mkdir('test/artifacts', {recursive: true})
  return {
    lake,
    server,
    deliveries,
    page,
    async reportFailure(file, test) {
      const report = [
        ...pageLog,
        // Event streams (`data/listen`) stay open by design; any other request still open is news.
        ...[...pending]
          .filter(([request]) => !request.url().includes('/data/listen/'))
          .map(
            ([request, since]) =>
              `unanswered for ${Math.round((performance.now() - since) / 1000)} s: ${request.method()} ${request.url()}`,
          ),
        `paths the stand-in did not answer: ${[...lake.unanswered].join(', ')}`,
      ]
      console.log(`The page, as the test failed:\n${report.join('\n')}`)
      const name = `${file}-${test}`.slice(0, 70).replaceAll(/[^\w-]+/g, '-')
      await page.screenshot({path: `test/artifacts/failed-${name}.png`, timeout: 60_000})
    },
    // Chromium first, and a browser that will not close still lets the servers stop.
    async close() {
      await browser.close().catch(() => undefined)
      await server.stop()
      await queryApi.close()
      await lake.close()
      await rm(studioDirectory, {recursive: true, force: true})
    },
  }
}
