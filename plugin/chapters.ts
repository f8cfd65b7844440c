import {z} from 'zod'
import {
  CHAPTER_TITLE_MAX_CHARACTERS,
  chapterFaults,
  chapterTitleFault,
  formatChapterTime,
  MAX_CHAPTERS,
  parseChapterTime,
  type ChapterFault,
} from '../server/api/v1/chapters.ts'
import type {Verdict} from './validation.ts'

// The episode's chapters in the Studio: the server's rules (server/api/v1/chapters.ts) worded in
// Hebrew for the editors, and the import of a Podcasting 2.0 chapters JSON file into the list.
// A chapter is a "מקטע" here: "פרק" is the episode itself.

const TIME_EXAMPLE = 'כתבו mm:ss או h:mm:ss, למשל 12:30 או 1:05:00.'

/** One chapter's start, as typed. */
export function checkChapterTime(text: string | undefined): Verdict {
  if (text === undefined) return true
  return parseChapterTime(text) === undefined ? `"${text}" אינו זמן. ${TIME_EXAMPLE}` : true
}

const titleTooLong = (length: number) =>
  `כותרת המקטע ארוכה מדי: ${length} תווים; לכל היותר ${CHAPTER_TITLE_MAX_CHARACTERS}.`

/** One chapter's title, as typed: the server's length limit (a missing title is the field's `required`). */
export function checkChapterTitle(text: string | undefined): Verdict {
  return chapterTitleFault(text) === 'too-long' ? titleTooLong(text?.trim().length ?? 0) : true
}

function hebrewFault(fault: ChapterFault): string {
  const chapter = 'index' in fault ? `מקטע ${fault.index + 1}` : ''
  switch (fault.kind) {
    case 'too-many':
      return `יש ${fault.count} מקטעים; לכל היותר ${MAX_CHAPTERS}.`
    case 'not-a-chapter':
      return `${chapter} אינו מקטע: חסרים בו זמן וכותרת.`
    case 'time':
      return `${chapter}: "${fault.text}" אינו זמן. ${TIME_EXAMPLE}`
    case 'title':
      return `${chapter}: חסרה כותרת.`
    case 'title-too-long':
      return `${chapter}: ${titleTooLong(fault.length)}`
    case 'first-not-zero':
      return `המקטע הראשון מתחיל ב-0:00 (עכשיו ב-${formatChapterTime(fault.seconds)}).`
    case 'not-ascending':
      return `${chapter} מתחיל ב-${formatChapterTime(fault.seconds)}, לא אחרי המקטע שלפניו (${formatChapterTime(fault.previous)}): הזמנים עולים מהראשון לאחרון.`
    case 'past-duration':
      return `${chapter} מתחיל ב-${formatChapterTime(fault.seconds)}, אחרי סוף הפרק (${formatChapterTime(fault.duration)}).`
  }
}

/**
 * The list as a whole: strictly ascending from 0:00, within the episode's duration when it is set.
 * A time or title missing from one chapter, or a title too long, is said on that chapter's own
 * field, not again here.
 */
export function checkChapters(chapters: readonly unknown[] | undefined, duration: unknown): Verdict {
  if (!chapters || chapters.length === 0) return true
  const seconds = typeof duration === 'number' && duration > 0 ? duration : null
  const messages = chapterFaults(chapters, seconds)
    .filter((fault) => fault.kind !== 'time' && fault.kind !== 'title' && fault.kind !== 'title-too-long')
    .map(hebrewFault)
  return messages.length === 0 ? true : messages.join(' ')
}

/** The largest chapters file the Studio reads: a few hundred chapters take a few tens of KB. */
export const CHAPTERS_FILE_MAX_BYTES = 1_000_000

// The JSON chapters format (podcast-namespace docs/examples/chapters/jsonChapters.md): `version`
// and `chapters` are required, each chapter needs only `startTime`; other fields are ignored.
const chaptersFileSchema = z.object({
  version: z.string(),
  chapters: z
    .array(
      z.object({
        startTime: z.number().nonnegative(),
        title: z.string().optional(),
        url: z.string().optional(),
        toc: z.boolean().optional(),
      }),
    )
    .max(MAX_CHAPTERS),
})

/** A chapter as the Studio's array holds it. */
interface StudioChapter {
  _key: string
  _type: 'chapter'
  start: string
  title: string
  url?: string
}

type ChaptersImport = {ok: true; chapters: StudioChapter[]} | {ok: false; message: string}

const hebrew = z.locales.he().localeError

/**
 * A chapters file's text as the Studio's chapters, or what is wrong with it, in Hebrew. Silent
 * chapters (`toc: false`) are not in any list a listener sees, so they are not imported; times
 * are cut to whole seconds. `newKey` makes each item's `_key`.
 */
export function chaptersFromJson(text: string, newKey: () => string): ChaptersImport {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return {ok: false, message: 'הקובץ אינו JSON תקין. בחרו קובץ מקטעים (chapters.json) בפורמט של Podcasting 2.0.'}
  }
  const parsed = chaptersFileSchema.safeParse(json, {error: hebrew})
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue && issue.path.length > 0 ? ` (${issue.path.join('.')})` : ''
    return {
      ok: false,
      message: `הקובץ אינו קובץ מקטעים בפורמט JSON של Podcasting 2.0${where}: ${issue?.message ?? ''}`,
    }
  }
  const chapters = parsed.data.chapters
    .filter((chapter) => chapter.toc !== false)
    .map((chapter): StudioChapter => ({
      _key: newKey(),
      _type: 'chapter',
      start: formatChapterTime(chapter.startTime),
      title: chapter.title ?? '',
      ...(chapter.url ? {url: chapter.url} : {}),
    }))
  if (chapters.length === 0) return {ok: false, message: 'אין בקובץ מקטעים להצגה.'}
  return {ok: true, chapters}
}
