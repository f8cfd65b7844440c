// Browser, end to end: an editor imports a transcript into an episode of the sample dataset in the
// Studio as this repository builds it, in Debian's headless Chromium, against the Content Lake
// stand-in (test/helpers/studio-stack.ts). The WebVTT file names two speakers in voice spans: one
// is the episode's guest (found by name), the other no voice in the catalog (kept by name, as the
// editor confirms). A file with overlapping cues is refused first, naming its line; a soundbite is
// then taken from a stretch of the imported cues (one too short refused) and the Feed view shows it
// beside the transcript's three formats; pasted SubRip text replaces the imported transcript last.
// Screenshots go to test/artifacts/studio-transcript-*.png.
import {readFile} from 'node:fs/promises'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {STUDIO_HOST} from '../../support/content-lake-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {startStudioStack, type StudioStack} from '../helpers/studio-stack.ts'

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
const referencesSchema = z.array(z.object({_ref: z.string()}))
// A published episode with one guest and no transcript yet, and its guest's voice.
const episode = documents
  .filter((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
  .filter((document) => !document.transcript && referencesSchema.safeParse(document.guests).data?.length === 1)
  .toSorted((one, other) => one._id.localeCompare(other._id))[0]
const guestId = referencesSchema.parse(episode?.guests)[0]?._ref ?? ''
const guestName = z.string().parse(documents.find((document) => document._id === guestId)?.name)
const episodeId = episode?._id ?? ''
const episodeSlug = z.object({current: z.string()}).parse(episode?.slug).current
const listener = 'מאזין מהקהל'

/** The guest's name as a file might spell it: extra spaces around and inside. */
const spelledByTheFile = ` ${guestName.replace(' ', '  ')} `
const vtt = [
  'WEBVTT',
  '',
  '1',
  '00:00:00.000 --> 00:00:02.500',
  `<v ${spelledByTheFile}>שלום לכולם, ותודה שבאתם</v>`,
  '',
  '2',
  '00:00:02.500 --> 00:00:05.250',
  `<v ${listener}>יש לי שאלה על <i>הביצועים</i></v>`,
  '',
  '3',
  '00:00:06.000 --> 00:00:24.000',
  `<v ${guestName}>בשמחה &amp; בקצרה</v>`,
  '',
].join('\n')
// The same file with its second cue starting before the first ends: line 8 is its timing.
const overlapping = vtt.replace('00:00:02.500 --> 00:00:05.250', '00:00:02.000 --> 00:00:05.250')

let stack: StudioStack

beforeAll(async () => {
  stack = await startStudioStack()
}, 300_000)
afterAll(() => stack?.close(), 60_000)

// A failing test leaves its page as it was, and what the page logged.
afterEach(async ({task}) => {
  if (task.result?.state === 'fail') await stack?.reportFailure('transcript', task.name)
}, 90_000)

const draft = () => stack.lake.dataset.get(`drafts.${episodeId}`)
const textOf = async (testId: string) => {
  const element = stack.page.getByTestId(testId)
  return (await element.isVisible()) ? element.innerText() : ''
}
const vttFile = (text: string) => ({name: 'episode.vtt', mimeType: 'text/vtt', buffer: Buffer.from(text)})

/**
 * Acts, and again while its effect does not show within ten seconds: once in a broken-code run, a
 * picked file showed nothing for a minute (an input re-rendered by the Studio can lose it), and an
 * editor who sees nothing happen picks the file again.
 */
async function untilItShows(act: () => Promise<unknown>, shows: () => Promise<boolean>, what: string) {
  for (const deadline = performance.now() + 90_000; performance.now() < deadline;) {
    await act().catch(() => undefined)
    for (
      const retryAt = performance.now() + 10_000;
      performance.now() < retryAt;
      await new Promise((resolve) => setTimeout(resolve, 100))
    )
      if (await shows()) return
  }
  throw new Error(`${what} did not show within 90 s`)
}
/** Picks a file until the panel shows `shown` (the error card or the summary) with something in it. */
const pick = (text: string, shown: string) =>
  untilItShows(
    () => stack.page.getByTestId('transcript-import-file').setInputFiles(vttFile(text), {timeout: 60_000}),
    async () => (await textOf(shown)) !== '',
    `${shown} after picking a file`,
  )

describe('an editor imports a WebVTT transcript into an episode, its speakers matched to voices', () => {
  it('refuses a file whose cues overlap, in Hebrew, naming the line', async () => {
    expect(episodeId, 'the sample dataset has an episode with one guest').not.toBe('')
    const {page} = stack
    await page.goto(`https://${STUDIO_HOST}/structure/episodes;${episodeId}`)
    await page.getByTestId('transcript-import-file').waitFor({state: 'attached', timeout: 120_000})
    await pick(overlapping, 'transcript-import-error')
    await expect
      .poll(() => textOf('transcript-import-error'), {timeout: 60_000})
      .toContain('הכתובית שבשורה 8 בקובץ מתחילה ב-00:02, לפני שהקודמת לה מסתיימת (00:02.500).')
    await page.getByTestId('transcript-import').scrollIntoViewIfNeeded()
    await page.screenshot({path: 'test/artifacts/studio-transcript-refused.png'})
    expect(draft()).toBeUndefined()
  }, 300_000)

  it("matches the guest by name, keeps the other speaker's name as confirmed, and replaces the transcript", async () => {
    const {page, lake} = stack
    await pick(vtt, 'transcript-import-summary')
    await expect
      .poll(() => textOf('transcript-import-summary'), {timeout: 60_000})
      .toBe('3 כתוביות ו-2 דוברים, מקובץ WebVTT.')
    expect(await page.getByTestId('transcript-import-error').count()).toBe(0)

    // The guest is found (the voices arrive from the lake: poll), the listener is not.
    const guestRow = page.getByTestId('transcript-speaker-1')
    const listenerRow = page.getByTestId('transcript-speaker-2')
    await expect.poll(() => guestRow.locator('select').inputValue(), {timeout: 60_000}).toBe(guestId)
    expect(await guestRow.innerText()).toContain(`${guestName}: נמצא קול בשם הזה.`)
    expect(await listenerRow.innerText()).toContain(`${listener}: לא נמצא קול בשם הזה.`)
    const replace = page.getByRole('button', {name: 'החלפת התמלול'})
    expect(await replace.isDisabled()).toBe(true)
    await page.getByTestId('transcript-import').scrollIntoViewIfNeeded()
    await page.screenshot({path: 'test/artifacts/studio-transcript-speakers.png'})

    await listenerRow.locator('select').selectOption({label: `להשאיר את השם „${listener}" כפי שהוא`})
    await expect.poll(() => replace.isEnabled(), {timeout: 30_000}).toBe(true)
    await replace.click({timeout: 30_000})

    const key = expect.stringMatching(/^[0-9a-f]{12}$/)
    const guest = {_type: 'reference', _ref: guestId}
    await expect
      .poll(() => draft()?.transcript, {timeout: 60_000})
      .toEqual([
        {_key: key, _type: 'transcriptCue', start: 0, end: 2.5, speaker: guest, text: 'שלום לכולם, ותודה שבאתם'},
        {
          _key: key,
          _type: 'transcriptCue',
          start: 2.5,
          end: 5.25,
          speakerName: listener,
          text: 'יש לי שאלה על הביצועים',
        },
        {_key: key, _type: 'transcriptCue', start: 6, end: 24, speaker: guest, text: 'בשמחה & בקצרה'},
      ])
    // The list below shows each cue with who speaks (the voice's name, or the name kept), and the
    // import says what it did.
    await expect.poll(() => textOf('transcript-import-done'), {timeout: 30_000}).toBe('התמלול הוחלף: 3 כתוביות.')
    const items = page.getByTestId('field-transcript').locator('[data-testid="default-preview__header"]')
    await expect
      .poll(async () => (await items.allInnerTexts()).map((text) => text.split('\n')), {timeout: 30_000})
      .toEqual([
        ['שלום לכולם, ותודה שבאתם', guestName],
        ['יש לי שאלה על הביצועים', listener],
        ['בשמחה & בקצרה', guestName],
      ])
    await page.screenshot({path: 'test/artifacts/studio-transcript-replaced.png'})
    expect(lake.refused).toEqual([])
  }, 300_000)

  it('adds a soundbite from a stretch of the imported cues, refusing one under 15 s, and the Feed view shows it and the transcripts', async () => {
    const {page, lake} = stack
    const open = page.getByRole('button', {name: 'הוספת קטע שמע מהתמלול'})
    await open.scrollIntoViewIfNeeded({timeout: 60_000})
    await expect.poll(() => open.isEnabled(), {timeout: 60_000}).toBe(true)
    await open.click({timeout: 30_000})
    const first = page.getByRole('combobox', {name: 'הכתובית הראשונה'})
    const last = page.getByRole('combobox', {name: 'הכתובית האחרונה'})
    // Each cue by its start time (isolated left to right) and the start of its text; the placeholder first.
    await expect
      .poll(() => first.locator('option').allTextContents(), {timeout: 30_000})
      .toEqual([
        'בחרו כתובית…',
        '\u20660:00\u2069 שלום לכולם, ותודה שבאתם',
        '\u20660:02.50\u2069 יש לי שאלה על הביצועים',
        '\u20660:06\u2069 בשמחה & בקצרה',
      ])
    const add = page.getByRole('button', {name: 'הוספת הקטע'})

    // The first two cues last 5.25 s: the shared rule refuses it, in its Hebrew words, before it is added.
    await first.selectOption({index: 1}, {timeout: 30_000})
    await last.selectOption({index: 2}, {timeout: 30_000})
    await expect
      .poll(() => textOf('soundbite-stretch'), {timeout: 30_000})
      .toBe('מתחיל ב-\u20660:00\u2069, אורכו 5.25 שניות.')
    await expect
      .poll(() => textOf('soundbite-stretch-error'), {timeout: 30_000})
      .toBe('אורך הקטע 5.25 שניות; הוא בין 15 ל-120 שניות.')
    expect(await add.isDisabled()).toBe(true)
    await page.getByTestId('soundbite-from-transcript').scrollIntoViewIfNeeded()
    await page.screenshot({path: 'test/artifacts/studio-transcript-soundbite-refused.png'})

    // From the second cue to the third: 2.5 s to 24 s.
    await first.selectOption({index: 2}, {timeout: 30_000})
    await last.selectOption({index: 3}, {timeout: 30_000})
    await expect
      .poll(() => textOf('soundbite-stretch'), {timeout: 30_000})
      .toBe('מתחיל ב-\u20660:02.50\u2069, אורכו 21.5 שניות.')
    expect(await page.getByTestId('soundbite-stretch-error').count()).toBe(0)
    await expect.poll(() => add.isEnabled(), {timeout: 30_000}).toBe(true)
    await add.click({timeout: 30_000})
    const title = 'יש לי שאלה על הביצועים בשמחה & בקצרה'
    await expect
      .poll(() => draft()?.soundbites, {timeout: 60_000})
      .toEqual([{_key: expect.stringMatching(/^[0-9a-f]{12}$/), _type: 'soundbite', start: 2.5, duration: 21.5, title}])
    const soundbites = page.getByTestId('field-soundbites').locator('[data-testid="default-preview__header"]')
    await expect
      .poll(() => soundbites.allInnerTexts(), {timeout: 30_000})
      .toEqual([`${title}\nמ-2.5 שניות, 21.5 שניות`])
    await page.screenshot({path: 'test/artifacts/studio-transcript-soundbite-added.png'})

    // The Feed view shows the item as the server will serve it: the transcript held as cues in its
    // three formats, WebVTT first, and the soundbite.
    await page.getByRole('tab', {name: 'פיד'}).click({timeout: 30_000})
    const code = page.locator('pre code').first()
    await expect
      .poll(async () => ((await code.isVisible()) ? await code.innerText() : ''), {timeout: 60_000})
      .toContain('<podcast:soundbite')
    const item = await code.innerText()
    const transcript = (extension: string) =>
      `url="https://api.codetalks.test/api/v1/episodes/${episodeSlug}/transcript.${extension}"`
    expect([...item.matchAll(/<podcast:transcript [^>]*>/g)].map((match) => match[0])).toEqual([
      `<podcast:transcript ${transcript('vtt')} type="text/vtt" language="he" rel="captions"/>`,
      `<podcast:transcript ${transcript('srt')} type="application/srt" language="he"/>`,
      `<podcast:transcript ${transcript('json')} type="application/json" language="he"/>`,
    ])
    // The item writer indents a title's CDATA on lines of its own.
    const soundbite = [...item.matchAll(/<podcast:soundbite [\s\S]*?<\/podcast:soundbite>/g)].map((match) =>
      match[0].replaceAll(/>\s+</g, '><'),
    )
    expect(soundbite).toEqual([
      `<podcast:soundbite startTime="2.5" duration="21.5"><![CDATA[${title}]]></podcast:soundbite>`,
    ])
    await page.screenshot({path: 'test/artifacts/studio-transcript-feed.png'})
    await page.getByRole('tab', {name: 'Editor'}).click({timeout: 30_000})
    await page.getByTestId('transcript-import').waitFor({timeout: 60_000})
    expect(lake.refused).toEqual([])
  }, 300_000)

  it('imports pasted SubRip text over it: no speakers, the "Name:" prefix kept as text', async () => {
    const {page, lake} = stack
    // The form, whichever view an earlier test left open.
    await page.getByRole('tab', {name: 'Editor'}).click({timeout: 30_000})
    const srt = '1\n00:00:01,000 --> 00:00:03,000\nיוסי: ברוכים הבאים\n\n2\n00:00:04,000 --> 00:00:06,500\nתודה רבה\n'
    await page.getByRole('button', {name: 'הדבקה'}).click({timeout: 30_000})
    await page.getByTestId('transcript-import-paste').fill(srt, {timeout: 30_000})
    await untilItShows(
      () => page.getByRole('button', {name: 'קריאת הטקסט'}).click({timeout: 30_000}),
      async () => (await textOf('transcript-import-summary')) !== '',
      'the pasted text read',
    )
    await expect
      .poll(() => textOf('transcript-import-summary'), {timeout: 60_000})
      .toBe('2 כתוביות בלי דוברים, מקובץ SubRip. התמלול הקיים (3 שורות) יוחלף.')
    expect(await page.getByTestId('transcript-speaker-1').count()).toBe(0)
    await page.getByRole('button', {name: 'החלפת התמלול'}).click({timeout: 30_000})
    const key = expect.stringMatching(/^[0-9a-f]{12}$/)
    await expect
      .poll(() => draft()?.transcript, {timeout: 60_000})
      .toEqual([
        {_key: key, _type: 'transcriptCue', start: 1, end: 3, text: 'יוסי: ברוכים הבאים'},
        {_key: key, _type: 'transcriptCue', start: 4, end: 6.5, text: 'תודה רבה'},
      ])
    expect(lake.refused).toEqual([])
  }, 300_000)
})
