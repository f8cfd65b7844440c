import {
  CHAPTER_TITLE_MAX_CHARACTERS,
  chapterFaults,
  chapterTitleFault,
  formatChapterTime,
  MAX_CHAPTERS,
  parseChapterTime,
  type ChapterFault,
} from '../v1/chapters.ts'
import type {Verdict} from './validation.ts'

// The episode's chapters in the Studio: the server's rules (catalog/v1/chapters.ts) worded in
// Hebrew for the editors (the import of a chapters JSON file is plugin/lib/chapters-import.ts).
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
