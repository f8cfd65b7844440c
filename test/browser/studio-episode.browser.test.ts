// Browser, end to end: an editor makes a whole episode in the Studio as this repository builds it,
// in Debian's headless Chromium, against the Content Lake stand-in and the API server run as
// `npm start` runs it (test/helpers/studio-stack.ts). The audio is a real MP3 that Debian's sox
// makes here: three seconds of a 440 Hz tone. The tests run in order, on one episode: it is
// created with its audio, given chapters and published, then scheduled a few minutes ahead.
// Screenshots go to test/artifacts/studio-episode-*.png.
import {execFileSync} from 'node:child_process'
import {mkdtemp, rm, stat} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope, listEnvelope} from '../../catalog/v1/contract.ts'
import {slugify} from '../../catalog/editor-rules/slugify.ts'
import {readContract} from '../helpers/contract.ts'
import {STUDIO_HOST} from '../../support/content-lake-stand-in.ts'
import {ensureDebianProgram} from '../../support/debian.ts'
import {startStudioStack, type StudioStack} from '../helpers/studio-stack.ts'

const TONE_SECONDS = 3
/** The tone's length as the Studio shows a duration (mm:ss). */
const TONE_SHOWN = '00:03'
const title = 'פרק 34: צליל של 440 הרץ'
const slug = slugify(title)
/** Two chapters within the tone's three seconds: as typed, and in seconds as the API serves them. */
const chapters = [
  {start: '00:00', seconds: 0, title: 'פתיחה'},
  {start: '00:02', seconds: 2, title: 'הצליל עצמו'},
]

let stack: StudioStack
let directory: string
let mp3: string
let bytes: number
/** The new episode's published id, once the Studio has created it. */
let episodeId = ''

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'studio-episode-'))
  mp3 = join(directory, 'tone.mp3')
  execFileSync(ensureDebianProgram('/usr/bin/sox', ['sox', 'libsox-fmt-mp3']), [
    ...['-n', '-r', '44100', '-c', '1', mp3],
    ...['synth', String(TONE_SECONDS), 'sine', '440'],
  ])
  bytes = (await stat(mp3)).size
  stack = await startStudioStack()
}, 300_000)
afterAll(async () => {
  await stack?.close()
  if (directory) await rm(directory, {recursive: true, force: true})
}, 60_000)

// A failing test leaves its page as it was, and what the page logged; on a busy machine a
// screenshot alone took longer than a hook's default ten seconds.
afterEach(async ({task}) => {
  if (task.result?.state === 'fail') await stack?.reportFailure('episode', task.name)
}, 90_000)

const get = (path: string) => fetch(`${stack.server.baseUrl}${path}`)
const statusOf = async (path: string) => {
  const response = await get(path)
  await response.arrayBuffer()
  return response.status
}
const draft = () => stack.lake.dataset.get(`drafts.${episodeId}`)
const published = () => stack.lake.dataset.get(episodeId)

/** A moment as an editor types it in the Studio (Israel time, `YYYY-MM-DD HH:mm`), and as Hebrew lists show it. */
function israelTime(instant: Date) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Asia/Jerusalem',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  )
  const {year = '', month = '', day = '', hour = '', minute = ''} = parts
  return {
    typed: `${year}-${month}-${day} ${hour}:${minute}`,
    listed: `${Number(day)}.${Number(month)}.${year}, ${Number(hour)}:${minute}`,
  }
}

/** A whole minute, `minutes` after the next one begins: what an editor can type. */
function wholeMinuteAhead(minutes: number): Date {
  const next = new Date(Date.now() + 60_000)
  next.setUTCSeconds(0, 0)
  return new Date(next.getTime() + minutes * 60_000)
}

/**
 * Acts, and again while its effect does not show within a few seconds: a click that lands while the
 * Studio re-renders a document pane is lost, and an editor who sees nothing happen tries again.
 */
async function untilItShows(act: () => Promise<unknown>, shows: () => boolean, what: string) {
  for (const deadline = performance.now() + 60_000; performance.now() < deadline;) {
    await act().catch(() => undefined)
    for (
      const retryAt = performance.now() + 5_000;
      performance.now() < retryAt;
      await new Promise((resolve) => setTimeout(resolve, 50))
    )
      if (shows()) return
  }
  throw new Error(`${what} did not happen within 60 s`)
}

const publish = (done: () => boolean, what: string) =>
  untilItShows(() => stack.page.getByTestId('action-publish').click({timeout: 5_000}), done, what)

describe('an editor makes an episode in the Studio, from its audio to its release time', () => {
  it('creates it in Hebrew and uploads a real MP3: the duration, byte length and type are read from the file', async () => {
    const {page, lake} = stack
    await page.goto(`https://${STUDIO_HOST}/structure/episodes`)
    await page.getByTestId('action-intent-button').click({timeout: 60_000})
    await page.locator('#title').fill(title, {timeout: 60_000})
    await page.getByTestId('field-slug').getByRole('button', {name: 'Generate'}).click()
    await expect.poll(() => page.locator('#slug').inputValue(), {timeout: 30_000}).toBe(slug)
    await page.locator('#description').fill('שלוש שניות של צליל, כדי לבדוק שהסטודיו קורא את הקובץ בעצמו.')
    // Released yesterday (typed in Israel time), so that publishing serves it at once.
    const yesterday = new Date(Date.now() - 24 * 3600_000)
    yesterday.setUTCSeconds(0, 0)
    // The date field takes what is typed when Enter is pressed (or it loses focus).
    await page.locator('#publishedAt').fill(israelTime(yesterday).typed)
    await page.locator('#publishedAt').press('Enter')
    await expect
      .poll(() => lake.dataset.all().find((document) => document.title === title)?._id ?? '', {timeout: 30_000})
      .toMatch(/^drafts\./)
    episodeId =
      lake.dataset
        .all()
        .find((document) => document.title === title)
        ?._id.replace(/^drafts\./, '') ?? ''
    await expect.poll(() => draft()?.publishedAt, {timeout: 30_000}).toBe(yesterday.toISOString())

    // The editor's own file, through the audio field's file input (the one taking Apple's types).
    await page.locator('input[type="file"][accept^="audio/mpeg"]').setInputFiles(mp3, {timeout: 60_000})
    // The duration field is filled from the file, and the length and type the feed encloses are shown.
    // A reading that gave up says why, so a failure here names it instead of an empty field.
    const unread = page.getByTestId('audio-file-unread')
    const durationOrWhyNot = async () =>
      (await unread.isVisible()) ? `unread: ${await unread.innerText()}` : page.locator('#duration').inputValue()
    await expect.poll(durationOrWhyNot, {timeout: 60_000}).toBe(String(TONE_SECONDS))
    const facts = page.getByTestId('audio-file-facts')
    await expect
      .poll(async () => ((await facts.isVisible()) ? await facts.innerText() : ''), {timeout: 60_000})
      .toBe(`מהקובץ: משך ${TONE_SHOWN} · ${bytes.toLocaleString('he-IL')} בתים · audio/mpeg`)
    const uploaded = z.object({asset: z.object({_ref: z.string()}), durationSeconds: z.number()})
    await expect
      .poll(() => uploaded.safeParse(draft()?.audioFile).data?.durationSeconds, {timeout: 30_000})
      .toBe(TONE_SECONDS)
    await expect.poll(() => draft()?.duration, {timeout: 30_000}).toBe(TONE_SECONDS)
    const assetId = uploaded.parse(draft()?.audioFile).asset._ref
    expect(lake.dataset.get(assetId)).toMatchObject({size: bytes, mimeType: 'audio/mpeg', originalFilename: 'tone.mp3'})
    await page.screenshot({path: 'test/artifacts/studio-episode-audio.png'})
  }, 300_000)

  it('adds two chapters, typed as mm:ss with Hebrew titles, and publishes: the API serves the audio and the chapters', async () => {
    const {page, lake} = stack
    const field = page.getByTestId('field-chapters')
    for (const [index, chapter] of chapters.entries()) {
      await field.getByRole('button', {name: 'Add item'}).click({timeout: 30_000})
      // The new chapter opens in a dialog of its own fields.
      const dialog = page.getByRole('dialog').last()
      await dialog.locator('input[id$=".start"]').fill(chapter.start, {timeout: 30_000})
      await dialog.locator('input[id$=".title"]').fill(chapter.title)
      // Both fields reach the draft before the dialog closes: the Studio sends them in separate mutations.
      const saved = z.array(z.object({start: z.string(), title: z.string()}))
      await expect
        .poll(() => saved.safeParse(draft()?.chapters).data?.[index], {timeout: 30_000})
        .toEqual(expect.objectContaining({start: chapter.start, title: chapter.title}))
      await page.keyboard.press('Escape')
      await expect.poll(() => dialog.isVisible(), {timeout: 30_000}).toBe(false)
    }
    // The list shows both, in order, and the document holds them.
    const items = field.locator('[data-testid="default-preview__header"]')
    await expect
      .poll(async () => (await items.allInnerTexts()).map((text) => text.split('\n')[0]), {timeout: 30_000})
      .toEqual(chapters.map((chapter) => chapter.title))
    await expect
      .poll(() => draft()?.chapters, {timeout: 30_000})
      .toMatchObject(chapters.map((chapter) => ({_type: 'chapter', start: chapter.start, title: chapter.title})))
    await page.screenshot({path: 'test/artifacts/studio-episode-chapters.png'})

    await publish(() => Array.isArray(published()?.chapters), 'publishing the episode')
    const path = `/api/v1/episodes/${slug}.json`
    await expect.poll(() => statusOf(path), {timeout: 30_000}).toBe(200)
    const {data} = await readContract(await get(path), itemEnvelope(episodeSchema))
    expect(data).toMatchObject({
      title,
      duration_seconds: TONE_SECONDS,
      audio: {length_bytes: bytes, mime_type: 'audio/mpeg'},
      chapters: chapters.map((chapter) => ({start_seconds: chapter.seconds, title: chapter.title})),
    })
    const chaptersResponse = await get(`/api/v1/episodes/${slug}/chapters.json`)
    expect(chaptersResponse.status).toBe(200)
    expect(chaptersResponse.headers.get('content-type')).toMatch(/^application\/json\+chapters/)
    expect(await chaptersResponse.json()).toMatchObject({
      version: '1.2.0',
      chapters: chapters.map((chapter) => ({startTime: chapter.seconds, title: chapter.title})),
    })
    const list = await readContract(await get('/api/v1/episodes.json'), listEnvelope(episodeSchema))
    expect(list.data.map((episode) => episode.slug)).toContain(slug)
    expect(lake.refused).toEqual([])
  }, 300_000)

  it('schedules it a few minutes ahead: the episode list marks it "מתוזמן" with its time, and the API holds it back', async () => {
    const {page, lake} = stack
    const countBefore = (await readContract(await get('/api/v1/episodes.json'), listEnvelope(episodeSchema))).pagination
      .total
    // A few minutes rather than one: on a busy machine the steps below took most of a minute.
    const release = wholeMinuteAhead(2)
    await page.locator('#publishedAt').fill(israelTime(release).typed)
    await page.locator('#publishedAt').press('Enter')
    await expect.poll(() => draft()?.publishedAt, {timeout: 30_000}).toBe(release.toISOString())
    await publish(() => published()?.publishedAt === release.toISOString(), 'publishing the release time')

    // Until its time the API serves it nowhere: not as an item, not in the list.
    await expect.poll(() => statusOf(`/api/v1/episodes/${slug}.json`), {timeout: 30_000}).toBe(404)
    const list = await readContract(await get('/api/v1/episodes.json'), listEnvelope(episodeSchema))
    expect(list.data.map((episode) => episode.slug)).not.toContain(slug)
    expect(list.pagination.total).toBe(countBefore - 1)

    // The episode list (beside the form) marks it scheduled, with its time in Israel time.
    const row = page
      .locator('[data-testid="document-list-pane"] [data-testid="default-preview__header"]')
      .filter({hasText: title})
    await expect
      .poll(async () => ((await row.count()) > 0 ? (await row.first().innerText()).split('\n') : []), {
        timeout: 60_000,
      })
      .toEqual([title, `מתוזמן · ${israelTime(release).listed}`])
    await page.screenshot({path: 'test/artifacts/studio-episode-scheduled.png'})
    // Everything above was seen before the release time, while the episode was still scheduled.
    expect(Date.now()).toBeLessThan(release.getTime())
    expect(lake.refused).toEqual([])
  }, 300_000)
})
