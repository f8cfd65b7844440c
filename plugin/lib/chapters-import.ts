import {z} from 'zod'
import {formatChapterTime, MAX_CHAPTERS} from '../../catalog/v1/chapters.ts'

// The import of a Podcasting 2.0 chapters JSON file into an episode's chapters.

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
