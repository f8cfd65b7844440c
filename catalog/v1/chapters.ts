import {z} from 'zod'
import {fetchedUrl, type Episode} from './contract.ts'
import type {Links} from './links.ts'
import {imageSourceSchema} from './rows.ts'

// An episode's chapters: the rules the Studio and the server share (editors type `mm:ss` or
// `h:mm:ss`; times strictly ascending from 0, within the duration; every title written), the
// mapping to the API's `chapters`, and the Podcasting 2.0 JSON chapters document made from it.

/** The most chapters an episode may have: more is a mistake, and the document must stay small. */
export const MAX_CHAPTERS = 200
/** The longest chapter title, in characters: apps show one line of it, and 200 of them stay a small document. */
export const CHAPTER_TITLE_MAX_CHARACTERS = 200

/** The JSON chapters format's version (podcast-namespace docs/examples/chapters/jsonChapters.md). */
const CHAPTERS_FORMAT_VERSION = '1.2.0'

const CHAPTER_TIME = /^(?:(\d{1,3}):([0-5]\d)|(\d{1,2}):([0-5]\d):([0-5]\d))$/

/** `mm:ss` (minutes may pass 59) or `h:mm:ss` as seconds; undefined when it is neither. */
export function parseChapterTime(text: string): number | undefined {
  const time = text.trim()
  if (!CHAPTER_TIME.test(time)) return undefined
  return time
    .split(':')
    .map(Number)
    .reduce((total, part) => total * 60 + part, 0)
}

/** Seconds as an editor types them: `m:ss`, or `h:mm:ss` from an hour on. */
export function formatChapterTime(totalSeconds: number): string {
  const whole = Math.floor(totalSeconds)
  const [hours, minutes, seconds] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60]
  const two = (value: number) => String(value).padStart(2, '0')
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`
}

/** A chapter as the Studio stores it (and the GROQ projection returns it); anything may be missing. */
const chapterRowSchema = z.object({
  start: z.string().nullish(),
  title: z.string().nullish(),
  url: z.string().nullish(),
  image: imageSourceSchema.nullish(),
  /** Whether the image's asset exists (the projection's; the Studio's own document has no such field). */
  image_found: z.boolean().nullish(),
})

/** What is wrong with one chapter title: none written, or longer than the limit. */
export function chapterTitleFault(title: string | null | undefined): 'missing' | 'too-long' | undefined {
  const trimmed = title?.trim() ?? ''
  if (!trimmed) return 'missing'
  return trimmed.length > CHAPTER_TITLE_MAX_CHARACTERS ? 'too-long' : undefined
}

/** What is wrong with a chapter list; `index` counts from 0. The Studio and the server each word these. */
export type ChapterFault =
  | {kind: 'too-many'; count: number}
  | {kind: 'not-a-chapter'; index: number}
  | {kind: 'time'; index: number; text: string}
  | {kind: 'title'; index: number}
  | {kind: 'title-too-long'; index: number; length: number}
  | {kind: 'first-not-zero'; seconds: number}
  | {kind: 'not-ascending'; index: number; seconds: number; previous: number}
  | {kind: 'past-duration'; index: number; seconds: number; duration: number}

/** Every rule a chapter list breaks. `duration` is the episode's, in seconds, when it is known. */
export function chapterFaults(chapters: readonly unknown[], duration: number | null | undefined): ChapterFault[] {
  if (chapters.length > MAX_CHAPTERS) return [{kind: 'too-many', count: chapters.length}]
  const faults: ChapterFault[] = []
  let previous: number | undefined
  chapters.forEach((raw, index) => {
    const chapter = chapterRowSchema.safeParse(raw)
    if (!chapter.success) return void faults.push({kind: 'not-a-chapter', index})
    const {start, title} = chapter.data
    const titleFault = chapterTitleFault(title)
    if (titleFault === 'missing') faults.push({kind: 'title', index})
    if (titleFault === 'too-long') faults.push({kind: 'title-too-long', index, length: title?.trim().length ?? 0})
    const seconds = start == null ? undefined : parseChapterTime(start)
    if (seconds === undefined) return void faults.push({kind: 'time', index, text: start ?? ''})
    if (index === 0 && seconds !== 0) faults.push({kind: 'first-not-zero', seconds})
    if (previous !== undefined && seconds <= previous) faults.push({kind: 'not-ascending', index, seconds, previous})
    if (duration != null && seconds >= duration) faults.push({kind: 'past-duration', index, seconds, duration})
    previous = seconds
  })
  return faults
}

/** A fault in English, for the document problems /status and the log report. */
function describeChapterFault(fault: ChapterFault): string {
  const chapter = 'index' in fault ? `chapter ${fault.index + 1}` : ''
  switch (fault.kind) {
    case 'too-many':
      return `${fault.count} chapters, more than ${MAX_CHAPTERS}`
    case 'not-a-chapter':
      return `${chapter} is not a chapter object`
    case 'time':
      return `${chapter} starts at "${fault.text}", which is neither mm:ss nor h:mm:ss`
    case 'title':
      return `${chapter} has no title`
    case 'title-too-long':
      return `${chapter} has a title of ${fault.length} characters, more than ${CHAPTER_TITLE_MAX_CHARACTERS}`
    case 'first-not-zero':
      return `the first chapter starts at ${formatChapterTime(fault.seconds)}, not at 0:00`
    case 'not-ascending':
      return `${chapter} starts at ${formatChapterTime(fault.seconds)}, not after the one before it (${formatChapterTime(fault.previous)})`
    case 'past-duration':
      return `${chapter} starts at ${formatChapterTime(fault.seconds)}, past the episode's end (${formatChapterTime(fault.duration)})`
  }
}

type Chapter = NonNullable<Episode['chapters']>[number]

/**
 * The API's chapters for an episode: null when it has none, or when the list breaks a rule (a
 * partial list would stretch the chapter before a missing one over its time, so the whole list is
 * left out and the faults are reported; so is a value that is not a list). A link apps could not
 * fetch, or an image whose asset does not exist, is left out alone, with a warning.
 */
export function mapChapters(
  raw: unknown,
  duration: number | null,
  links: Links,
): {chapters: Chapter[] | null; warnings: string[]} {
  if (raw === null || raw === undefined) return {chapters: null, warnings: []}
  if (!Array.isArray(raw)) return {chapters: null, warnings: ['chapters: left out: not a list']}
  if (raw.length === 0) return {chapters: null, warnings: []}
  const faults = chapterFaults(raw, duration)
  if (faults.length > 0)
    return {chapters: null, warnings: [`chapters: left out: ${faults.map(describeChapterFault).join('; ')}`]}
  const warnings: string[] = []
  const chapters = raw.map((item, index): Chapter => {
    const row = chapterRowSchema.parse(item)
    const url = row.url ? fetchedUrl.safeParse(row.url) : undefined
    if (url && !url.success) warnings.push(`chapters.${index}.url: left out "${row.url}", not an https URL in ASCII`)
    const image = row.image && row.image_found === false ? undefined : row.image
    if (row.image && !image)
      warnings.push(`chapters.${index}.image: left out, its asset ${row.image.asset._ref} does not exist`)
    return {
      start_seconds: parseChapterTime(row.start ?? '') ?? 0,
      title: row.title?.trim() ?? '',
      url: url?.success ? url.data : null,
      image_url: image ? links.artwork(image, CHAPTER_IMAGE_SIDE) : null,
    }
  })
  return {chapters, warnings}
}

/** Chapter art is shown square by the apps that show it; this size is plenty for a phone. */
const CHAPTER_IMAGE_SIDE = 800

/** The Podcasting 2.0 JSON chapters document as this API writes it (the format allows more optional fields). */
export const chaptersDocumentSchema = z
  .strictObject({
    version: z.literal(CHAPTERS_FORMAT_VERSION),
    title: z.string().meta({description: "The episode's title."}),
    chapters: z.array(
      z.strictObject({
        startTime: z.number().int().nonnegative().meta({description: 'Seconds from the start of the audio.'}),
        title: z.string(),
        img: fetchedUrl.optional(),
        url: fetchedUrl.optional(),
      }),
    ),
  })
  .meta({
    id: 'JsonChapters',
    description:
      "An episode's chapters in the Podcasting 2.0 JSON chapters format 1.2 (podcast-namespace docs/examples/chapters/jsonChapters.md), served as application/json+chapters.",
  })

/** The episode's chapters in the Podcasting 2.0 JSON chapters format, ready to serialise. */
export function chaptersDocument(episode: Pick<Episode, 'title' | 'chapters'>): z.infer<typeof chaptersDocumentSchema> {
  return {
    version: CHAPTERS_FORMAT_VERSION,
    title: episode.title,
    chapters: (episode.chapters ?? []).map((chapter) => ({
      startTime: chapter.start_seconds,
      title: chapter.title,
      ...(chapter.image_url ? {img: chapter.image_url} : {}),
      ...(chapter.url ? {url: chapter.url} : {}),
    })),
  }
}

/** Where an episode's chapters document is served, relative to the API's prefix. */
export const chaptersPath = (slug: string) => `episodes/${slug}/chapters.json`
