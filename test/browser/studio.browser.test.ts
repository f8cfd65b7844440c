// Browser, end to end: the Studio as this repository builds it (`sanity build`), opened in Debian's
// headless Chromium against a local stand-in of Sanity's API over HTTP/2 that holds the sample
// dataset, takes the Studio's edits and sends Sanity's signed webhook on each publish to the API
// server, run as `npm start` runs it with its Sanity source reading the same dataset
// (test/helpers/studio-stack.ts). Every host but the stand-in is unresolvable, so the test runs
// offline. The tests run in order: the lists and the API view first, then an editor's changes.
// Screenshots go to test/artifacts/studio-*.png.
import {readFile} from 'node:fs/promises'
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import type {Page} from 'playwright-core'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope, listEnvelope, meetupSchema, voiceSchema} from '../../catalog/v1/contract.ts'
import {voiceOrder} from '../../catalog/v1/order.ts'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {slugify} from '../../catalog/editor-rules/slugify.ts'
import {REQUIRED, SLUG_MISSING} from '../../catalog/editor-rules/validation.ts'
import {readContract} from '../helpers/contract.ts'
import {STUDIO_HOST, type ContentLakeStandIn} from '../../support/content-lake-stand-in.ts'
import type {Delivery} from '../../support/content-lake-webhook.ts'
import type {MainProcess} from '../helpers/main-process.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {startStudioStack, type StudioStack} from '../helpers/studio-stack.ts'

const slugSchema = z.object({current: z.string()})
/** A build outcome the server logs (server/publish-path.ts): level 30 when it succeeded, 50 when it failed. */
const loggedBuild = z.object({level: z.number(), build: z.string(), documents: z.array(z.string()).optional()}).loose()
const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
/** How long the Studio may take to show a pane or an effect: on a loaded machine a document form took over 30 s. */
const STUDIO_WAIT_MS = 60_000

let stack: StudioStack
let lake: ContentLakeStandIn
let server: MainProcess
let deliveries: Delivery[]
let page: Page

beforeAll(async () => {
  stack = await startStudioStack()
  ;({lake, server, deliveries, page} = stack)
}, 300_000)
// A minute: on a slow machine Chromium, the server's drain and the stand-ins' open streams took
// longer than the default 10 s to close, and a passing suite failed in its teardown.
afterAll(() => stack?.close(), 60_000)

// A failing test leaves its page as it was (test/artifacts/failed-studio-<test>.png), and what
// the page logged; on a busy machine a screenshot alone took longer than a hook's default 10 s.
afterEach(async ({task}) => {
  if (task.result?.state === 'fail') await stack?.reportFailure('studio', task.name)
}, 90_000)

const get = (path: string) => fetch(`${server.baseUrl}${path}`)
const slugOf = (document: SanityDocument | undefined) => slugSchema.parse(document?.slug).current
const hasDraft = (document: SanityDocument) => documents.some((other) => other._id === `drafts.${document._id}`)
const publishedWithoutDraft = (type: string) =>
  documents.filter((document) => document._type === type && !document._id.startsWith('drafts.') && !hasDraft(document))

/** The build outcomes the server has logged past the first `from` characters of its output. */
function buildsLoggedAfter(from: number) {
  return server
    .output()
    .slice(from)
    .split('\n')
    .flatMap((line) => {
      try {
        const build = loggedBuild.safeParse(JSON.parse(line))
        return build.success ? [build.data] : []
      } catch {
        return [] // a line still being written
      }
    })
}

/**
 * Publishes in the Studio, waits for the Content Lake to hold the change, its webhook to be
 * accepted and the API to show it, and checks what served it: the one-document build that webhook
 * started, succeeding at once (no failed build, no retry, no full read). How soon that is, is
 * measured by `npm run bench:edge` (webhook to fresh at the edge), not asserted on a shared machine.
 */
async function publishAndServe(publish: {
  act: () => Promise<void>
  change: (document: SanityDocument | undefined) => boolean
  id: string
  path: string
  shows: (response: Response) => Promise<boolean>
}) {
  const {act, change, id, path, shows} = publish
  const logFrom = server.output().length
  await act()
  await expect.poll(() => change(lake.dataset.get(id)), {interval: 10}).toBe(true)
  await expect
    .poll(() => deliveries.find((delivery) => delivery.documentId === id && change(lake.dataset.get(id)))?.status, {
      interval: 5,
    })
    .toBe(202)
  await expect.poll(async () => shows(await get(path)), {timeout: STUDIO_WAIT_MS, interval: 10}).toBe(true)
  // The build's log line is written asynchronously, so it may follow the answer that shows it.
  await expect.poll(() => buildsLoggedAfter(logFrom).some((build) => build.documents?.includes(id))).toBe(true)
  const builds = buildsLoggedAfter(logFrom)
  expect(
    builds.filter((build) => build.level !== 30),
    'no build failed',
  ).toEqual([])
  expect(
    builds.find((build) => build.documents?.includes(id)),
    'served by a one-document build',
  ).toMatchObject({build: 'documents'})
  expect(
    builds.filter((build) => build.build === 'full'),
    'no full read',
  ).toEqual([])
}

/**
 * Acts, and again while its effect does not show within a few seconds: a click that lands while the
 * Studio re-renders a document pane is lost (an open menu closes, a press is dropped), and an
 * editor who sees nothing happen tries again.
 */
async function untilItShows(act: () => Promise<unknown>, shows: () => Promise<boolean> | boolean, what: string) {
  for (const deadline = performance.now() + STUDIO_WAIT_MS; performance.now() < deadline;) {
    await act().catch(() => undefined)
    for (
      const retryAt = performance.now() + 3_000;
      performance.now() < retryAt;
      await new Promise((resolve) => setTimeout(resolve, 50))
    )
      if (await shows()) return
  }
  throw new Error(`${what} did not happen within ${STUDIO_WAIT_MS / 1000} s`)
}

describe('the Studio in Chromium', () => {
  it("opens on the catalog, with the plugin's lists titled in Hebrew", async () => {
    await page.goto(`https://${STUDIO_HOST}/structure`)
    const catalog = page.locator('[data-testid="structure-tool-list-pane"]').first()
    await catalog.getByText('קטלוג', {exact: true}).waitFor({timeout: STUDIO_WAIT_MS})
    for (const title of ['פרקים', 'הרצאות במיטאפים', 'קולות'])
      expect(await catalog.locator(`[data-testid="pane-item-${title}"]`).count(), title).toBe(1)
    await page.screenshot({path: 'test/artifacts/studio-structure.png'})
  }, 180_000)

  it('lists the episodes newest first, drafts among them, a long Hebrew title cut at its end', async () => {
    await page.goto(`https://${STUDIO_HOST}/structure/episodes`)
    const headers = page.locator('[data-testid="document-list-pane"] [data-testid="default-preview__header"]')
    await headers.first().waitFor({timeout: STUDIO_WAIT_MS})
    const newest = documents
      .filter((document) => document._type === 'episode')
      .toSorted((a, b) => String(b.publishedAt).localeCompare(String(a.publishedAt)))[0]
    // The list is drawn before its order arrives: wait for the newest to come first.
    await expect
      .poll(async () => (await headers.first().innerText()).split('\n')[0], {timeout: STUDIO_WAIT_MS})
      .toBe(String(newest?.title))
    // A title too long for the list must still show its first letter: right-to-left, cut at its end
    // (the left). Each title's text is laid out whole in a block that clips it (`overflow: clip`).
    const overflowing = await headers
      .locator('[data-ui="Text"] > span > span')
      .evaluateAll<{title: string | null; firstLetterShown: boolean}[], undefined, HTMLElement>((boxes) =>
        boxes.flatMap((box) => {
          const text = box.firstChild
          if (text === null || !text.textContent) return []
          const range = box.ownerDocument.createRange()
          range.selectNodeContents(text)
          const shown = box.getBoundingClientRect()
          if (range.getBoundingClientRect().width <= shown.width + 1) return []
          range.setStart(text, 0)
          range.setEnd(text, 1)
          const letter = range.getBoundingClientRect()
          return [
            {
              title: box.textContent,
              firstLetterShown: letter.left >= shown.left - 1 && letter.right <= shown.right + 1,
            },
          ]
        }),
      )
    expect(overflowing.length).toBeGreaterThan(0)
    expect(overflowing.filter((title) => !title.firstLetterShown)).toEqual([])
    await page.screenshot({path: 'test/artifacts/studio-episodes.png'})
  }, 180_000)

  it("lists the voices in the API's order (a Hebrew collator), not by code point", async () => {
    await page.goto(`https://${STUDIO_HOST}/structure/voices`)
    // What an editor sees (a voice's draft where it has one), in the order the API lists voices.
    const visible = new Map<string, {name: string; slug: string}>()
    for (const voice of documents
      .filter((document) => document._type === 'voice')
      .sort((a, b) => Number(a._id.startsWith('drafts.')) - Number(b._id.startsWith('drafts.')))) {
      visible.set(voice._id.replace(/^drafts\./, ''), {
        name: String(voice.name),
        slug: slugSchema.safeParse(voice.slug).data?.current ?? '',
      })
    }
    const expected = [...visible.values()]
      .sort((a, b) => voiceOrder.compare([a.name, a.slug], [b.name, b.slug]))
      .map((voice) => voice.name)
    const headers = page
      .locator('[data-testid="structure-tool-list-pane"]')
      .nth(1)
      .locator('[data-testid="default-preview__header"]')
    await headers.first().waitFor({timeout: STUDIO_WAIT_MS})
    // The list is virtualised: the voices on screen are the first ones, in order.
    const shown = (await headers.allInnerTexts()).map((text) => text.split('\n')[0])
    expect(shown.length).toBeGreaterThan(10)
    expect(shown).toEqual(expected.slice(0, shown.length))
    const byCodePoint = [...expected].sort((a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0))
    expect(shown).not.toEqual(byCodePoint.slice(0, shown.length))
    await page.screenshot({path: 'test/artifacts/studio-voices.png'})
  }, 180_000)

  it('shows, in the API view of an episode, exactly what GET serves for it', async () => {
    const [episode] = publishedWithoutDraft('episode')
    if (!episode) throw new Error('no published episode without a draft in the sample')
    await page.goto(`https://${STUDIO_HOST}/structure/episodes;${episode._id}`)
    const code = page.locator('pre code').first()
    await untilItShows(
      () => page.getByRole('tab', {name: 'API'}).click({timeout: 5_000}),
      () => code.isVisible(),
      'the API view',
    )
    const shown: unknown = JSON.parse(await code.innerText())
    const served: unknown = await (await get(`/api/v1/episodes/${slugOf(episode)}.json`)).json()
    expect(shown).toEqual(served)
    await page
      .locator('[data-testid="document-list-pane"] [data-testid="default-preview__header"]')
      .first()
      .waitFor({timeout: STUDIO_WAIT_MS})
    await page.screenshot({path: 'test/artifacts/studio-api-view.png'})
  }, 180_000)
})

describe("an editor, the operator's server and the API's readers", () => {
  const title = 'פרק 33: שלום עולם'
  const guest = publishedWithoutDraft('voice')[0]

  it('an episode written in Hebrew is held back while it breaks the contract, then published, and readers get it with a new ETag from the one-document build its webhook starts', async () => {
    if (!guest) throw new Error('no published voice without a draft in the sample')
    const listBefore = await get('/api/v1/episodes.json')
    const etagBefore = listBefore.headers.get('etag')
    const countBefore = (await readContract(listBefore, listEnvelope(episodeSchema))).pagination.total

    await page.goto(`https://${STUDIO_HOST}/structure/episodes`)
    await page.locator('[data-testid="action-intent-button"]').click({timeout: STUDIO_WAIT_MS})
    await page.locator('#title').fill(title)
    // A Hebrew field description with Latin words in it reads right-to-left: on its first line, its
    // first letter is the rightmost (laid out left-to-right, the Latin word would split the line into runs).
    const description = page
      .getByTestId('field-slug')
      .locator('[data-ui="fieldHeaderContentBox"] [data-ui="Text"] > span')
      .filter({hasText: 'הכתובת'})
    const firstLetterAtRight = await description.evaluate((box) => {
      const text = box.firstChild
      if (!text?.textContent) return false
      const range = box.ownerDocument.createRange()
      const letterAt = (index: number) => {
        range.setStart(text, index)
        range.setEnd(text, index + 1)
        return range.getBoundingClientRect()
      }
      const first = letterAt(0)
      const line = Array.from(text.textContent, (_, index) => letterAt(index)).filter(
        (letter) => Math.abs(letter.top - first.top) < 2,
      )
      return line.every((letter) => letter.right <= first.right + 1)
    })
    expect(firstLetterAtRight).toBe(true)

    // Without a slug, a summary and a date the contract is broken: publishing is blocked and the
    // validation panel says why in Hebrew, for our rules and Sanity's built-in ones alike.
    await expect.poll(() => page.locator('[data-testid="action-publish"]').isDisabled()).toBe(true)
    await page.getByRole('button', {name: 'Validation'}).click()
    // Messages shown on the page (each also sits in a hidden tooltip).
    const shown = (text: string) => page.getByText(text, {exact: true}).filter({visible: true})
    await shown(SLUG_MISSING).first().waitFor({timeout: 10_000})
    expect(await shown(REQUIRED).count()).toBeGreaterThanOrEqual(3) // the summary, the date, the slug type's own `current`
    expect(await shown('Required').count()).toBe(0)
    await page.screenshot({path: 'test/artifacts/studio-validation.png'})

    await page.getByTestId('field-slug').getByRole('button', {name: 'Generate'}).click()
    const slug = slugify(title)
    // Ten seconds, as for the other Studio round trips: the Studio validates after a debounce and a
    // slow machine took longer than expect.poll's default second to clear the message.
    await expect.poll(() => page.locator('#slug').inputValue()).toBe(slug)
    await expect.poll(() => shown(SLUG_MISSING).count()).toBe(0)
    await page.locator('#description').fill('פרק על ה-API הראשון שכתבנו, מהסכמה ועד ה-ETag.')
    // Typed in Israel time (winter, UTC+2), stored in UTC.
    await page.locator('#publishedAt').fill('2026-11-20 09:00')
    await page.locator('#tags').fill('api')
    await page.locator('#tags').press('Enter')
    await page.locator('[data-testid="add-single-object-button"]').first().click()
    await page.locator('[data-testid="autocomplete"]').fill(String(guest.name))
    await page.getByRole('option', {name: new RegExp(String(guest.name))}).click()
    const draft = () =>
      lake.dataset.all().find((document) => document.title === title && document._id.startsWith('drafts.'))
    await expect
      .poll(
        () =>
          Array.isArray(draft()?.guests) &&
          Array.isArray(draft()?.tags) &&
          draft()?.publishedAt === '2026-11-20T07:00:00.000Z',
      )
      .toBe(true)
    const id = draft()?._id.slice('drafts.'.length) ?? ''
    const path = `/api/v1/episodes/${slug}.json`
    await publishAndServe({
      act: () =>
        untilItShows(
          () => page.locator('[data-testid="action-publish"]').click({timeout: 5_000}),
          () => lake.dataset.get(id) !== undefined,
          'publishing the episode',
        ),
      change: (document) => document !== undefined,
      id,
      path,
      shows: async (response) => response.status === 200,
    })

    const {data} = await readContract(await get(path), itemEnvelope(episodeSchema))
    expect(data).toMatchObject({
      title,
      slug,
      published_date: '2026-11-20',
      tags: ['api'],
      guests: [{slug: slugOf(guest)}],
    })
    const listAfter = await get('/api/v1/episodes.json')
    expect(listAfter.headers.get('etag')).not.toBe(etagBefore)
    const list = await readContract(listAfter, listEnvelope(episodeSchema))
    expect(list.pagination.total).toBe(countBefore + 1)
    expect(list.data[0]?.slug).toBe(slug) // the newest published episode
    // An agent reading through MCP gets the same record: the API and MCP answer from one snapshot.
    const agent = new Client({name: 'studio-end-to-end', version: '1.0.0'})
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
    try {
      const result = await agent.callTool({name: 'get_episode', arguments: {slug}})
      expect({data: episodeSchema.parse(result.structuredContent)}).toEqual(await (await get(path)).json())
    } finally {
      await agent.close()
    }
    expect(lake.refused).toEqual([]) // every write the Studio made was one the Content Lake accepts
    await page.screenshot({path: 'test/artifacts/studio-published.png'})
  }, 240_000)

  it('an episode given its audio shows its feed <item> in the Feed view, and the published feed serves exactly that item after its webhook', async () => {
    const episode = publishedWithoutDraft('episode').find(
      (candidate) => candidate.audioUrl === undefined && candidate.audioFile === undefined,
    )
    if (!episode) throw new Error('no published episode without audio and without a draft in the sample')
    const audio = {url: 'https://media.codetalks.test/episodes/ep-31.mp3', length: '48123456', type: 'audio/mpeg'}
    await page.goto(`https://${STUDIO_HOST}/structure/episodes;${episode._id}`)
    await expect.poll(() => page.locator('#title').inputValue(), {timeout: STUDIO_WAIT_MS}).toBe(episode.title)
    const feedTab = page.getByRole('tab', {name: 'פיד'})
    const formTab = page.getByRole('tab', {name: 'Editor'})

    // Without audio the episode has no item, and the Feed view says why, in Hebrew.
    await feedTab.click()
    await page.getByText('הפרק לא יופיע בפיד', {exact: false}).waitFor({timeout: STUDIO_WAIT_MS})
    await page.getByText('אין לפרק אודיו', {exact: false}).waitFor({timeout: 10_000})
    await page.screenshot({path: 'test/artifacts/studio-feed-not-served.png'})
    expect(await (await get('/feed.xml')).text()).not.toContain(`>${episode._id}</guid>`)

    // Apple fetches audio over https only: a plain http address is refused, and publishing waits.
    await formTab.click()
    await page.locator('#audioUrl').fill(audio.url.replace('https://', 'http://'))
    await page.getByRole('button', {name: 'Validation'}).click()
    await page
      .getByText('קישור לאודיו חייב להתחיל ב-https://.', {exact: true})
      .filter({visible: true})
      .first()
      .waitFor({timeout: 10_000})
    // The summary's bytes left of Apple's 4000 are shown as it is written: a Hebrew letter takes two.
    const bytesLeft = 4000 - Buffer.byteLength(String(episode.description), 'utf8')
    await page
      .getByText(`נותרו ${bytesLeft} בתים מתוך 4000 בפיד`, {exact: false})
      .filter({visible: true})
      .first()
      .waitFor({timeout: 10_000})
    await page.screenshot({path: 'test/artifacts/studio-feed-validation.png'})
    await expect.poll(() => page.locator('[data-testid="action-publish"]').isDisabled()).toBe(true)
    // A control character pasted into the title (word processors and chat apps carry them) is named, with its position.
    const title = String(episode.title)
    await page.locator('#title').fill(`${title}\u0008`)
    await page
      .getByText(`יש תו שאי אפשר להגיש בפיד (U+0008) במקום ${Array.from(title).length + 1}`, {exact: false})
      .filter({visible: true})
      .first()
      .waitFor({timeout: 10_000})
    await page.screenshot({path: 'test/artifacts/studio-control-character.png'})
    await page.locator('#title').fill(title)
    await page.locator('#audioUrl').fill(audio.url)
    // A transcript is fetched by podcast apps too: plain http is refused the same way (once the
    // audio's address is https, the transcript's is the only one that can show this message).
    const httpsOnly = page.getByText('קישור מלא, שמתחיל ב-https://', {exact: true}).filter({visible: true})
    await expect.poll(() => httpsOnly.count()).toBe(0)
    await page.locator('#transcriptUrl').fill('http://media.codetalks.test/episodes/ep-31.vtt')
    await httpsOnly.first().waitFor({timeout: 10_000})
    await page.screenshot({path: 'test/artifacts/studio-http-transcript.png'})
    await page.locator('#transcriptUrl').fill('')
    await expect.poll(() => httpsOnly.count()).toBe(0)
    await page.locator('#audioLength').fill(audio.length)
    // Sanity's select names each option by its title; its values are the list's indices.
    await page.locator('select#audioType').selectOption({label: `MP3 (${audio.type})`})
    await page.locator('#season').fill('3')
    await expect
      .poll(() => {
        const draft = lake.dataset.get(`drafts.${episode._id}`)
        return (
          draft?.audioUrl === audio.url &&
          draft.audioLength === Number(audio.length) &&
          draft.audioType === audio.type &&
          draft.season === 3
        )
      })
      .toBe(true)

    // The Feed view now shows the item the feed will serve: the enclosure with its exact length, the
    // season, and a guid that is the document's id, never its slug.
    await feedTab.click()
    const code = page.locator('pre code').first()
    await expect
      .poll(async () => ((await code.isVisible()) ? await code.innerText() : ''), {timeout: STUDIO_WAIT_MS})
      .toContain(audio.length)
    const item = await code.innerText()
    for (const part of [
      `url="${audio.url}"`,
      `length="${audio.length}"`,
      `type="${audio.type}"`,
      '<itunes:season>3</itunes:season>',
      `<guid isPermaLink="false">${episode._id}</guid>`,
      '<itunes:explicit>false</itunes:explicit>',
    ]) {
      expect(item).toContain(part)
    }
    await page.screenshot({path: 'test/artifacts/studio-feed-view.png'})

    await publishAndServe({
      act: () =>
        untilItShows(
          () => page.locator('[data-testid="action-publish"]').click({timeout: 5_000}),
          () => lake.dataset.get(episode._id)?.audioUrl === audio.url,
          "publishing the episode's audio",
        ),
      change: (document) => document?.audioUrl === audio.url,
      id: episode._id,
      path: '/feed.xml',
      shows: async (response) => (await response.text()).includes(item),
    })
    expect(lake.refused).toEqual([])
  }, 240_000)

  it('a voice edited and published is served changed by the build its webhook starts', async () => {
    if (!guest) throw new Error('no published voice without a draft in the sample')
    const role = 'Principal Consultant, Code Talks'
    await page.goto(`https://${STUDIO_HOST}/structure/voices;${guest._id}`)
    await expect.poll(() => page.locator('#name').inputValue(), {timeout: STUDIO_WAIT_MS}).toBe(guest.name)
    await page.locator('#role').fill(role)
    await expect.poll(() => lake.dataset.get(`drafts.${guest._id}`)?.role).toBe(role)
    await publishAndServe({
      act: () =>
        untilItShows(
          () => page.locator('[data-testid="action-publish"]').click({timeout: 5_000}),
          () => lake.dataset.get(guest._id)?.role === role,
          'publishing the voice',
        ),
      change: (document) => document?.role === role,
      id: guest._id,
      path: `/api/v1/voices/${slugOf(guest)}.json`,
      shows: async (response) => (await readContract(response, itemEnvelope(voiceSchema))).data.role === role,
    })
    expect(lake.refused).toEqual([])
  }, 240_000)

  it('a meetup deleted in the Studio is gone from the API after its webhook', async () => {
    const [meetup] = publishedWithoutDraft('meetup')
    if (!meetup) throw new Error('no published meetup without a draft in the sample')
    const countBefore = (await readContract(await get('/api/v1/meetups.json'), listEnvelope(meetupSchema))).pagination
      .total
    await page.goto(`https://${STUDIO_HOST}/structure/meetups;${meetup._id}`)
    await expect.poll(() => page.locator('#title').inputValue(), {timeout: STUDIO_WAIT_MS}).toBe(meetup.title)
    const deleteItem = page.getByTestId('action-Delete')
    const confirm = page.getByTestId('confirm-button')
    await untilItShows(
      async () => {
        if (!(await deleteItem.isVisible())) await page.getByTestId('action-menu-button').click({timeout: 5_000})
        await deleteItem.click({timeout: 5_000})
      },
      () => confirm.isVisible(),
      'the delete dialog',
    )
    await publishAndServe({
      act: () =>
        untilItShows(
          () => confirm.click({timeout: 5_000}),
          () => lake.dataset.get(meetup._id) === undefined,
          'deleting the meetup',
        ),
      change: (document) => document === undefined,
      id: meetup._id,
      path: `/api/v1/meetups/${slugOf(meetup)}.json`,
      shows: async (response) => {
        await response.arrayBuffer()
        return response.status === 404
      },
    })
    expect((await readContract(await get('/api/v1/meetups.json'), listEnvelope(meetupSchema))).pagination.total).toBe(
      countBefore - 1,
    )
    expect(lake.refused).toEqual([])
  }, 240_000)
})
