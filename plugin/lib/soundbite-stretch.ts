import {z} from 'zod'
import {formatSoundbiteTime, SOUNDBITE_TITLE_MAX_CHARACTERS} from '../../catalog/v1/soundbites.ts'
import {soundbiteRefusal} from '../../catalog/editor-rules/podcast-tags.ts'

// A soundbite taken from a stretch of the episode's transcript: from the first cue's start to the
// last cue's end, titled with what is said in it. The shared rule (catalog/v1/soundbites.ts,
// worded in catalog/editor-rules/podcast-tags.ts) decides whether the stretch may be one, before it is added.

/** A cue of the transcript as the Studio's form holds it, by its array key. */
export interface StretchCue {
  key: string
  start: number
  end: number
  text: string
}

const formCueSchema = z.object({_key: z.string(), start: z.number(), end: z.number(), text: z.string()})

/** The transcript's cues that can bound a stretch (a key, both times and text), in the list's order. */
export function stretchCuesOf(transcript: unknown): StretchCue[] {
  if (!Array.isArray(transcript)) return []
  return transcript.flatMap((raw): StretchCue[] => {
    const cue = formCueSchema.safeParse(raw)
    return cue.success ? [{key: cue.data._key, start: cue.data.start, end: cue.data.end, text: cue.data.text}] : []
  })
}

/** How many characters of a cue's text its option shows. */
const LABEL_CHARACTERS = 40
/** A left-to-right run inside Hebrew (a time), isolated so it reads in its own order. */
const ltr = (text: string) => `\u2066${text}\u2069`
const oneLine = (text: string) => text.replace(/\s+/gu, ' ').trim()

/** Text cut to at most `max` UTF-16 units (as the rule counts), on a word when one ends late enough, with an ellipsis. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text
  let kept = ''
  // By code point: an emoji is never split in two.
  for (const character of text) {
    if (kept.length + character.length > max - 1) break
    kept += character
  }
  const space = kept.lastIndexOf(' ')
  return `${(space > max / 2 ? kept.slice(0, space) : kept).trimEnd()}…`
}

/** A cue as its option reads: its start time, then the start of what is said. */
export function cueLabel(cue: StretchCue): string {
  return `${ltr(formatSoundbiteTime(cue.start))} ${cut(oneLine(cue.text), LABEL_CHARACTERS)}`
}

/** The cues' text joined, on one line, cut to a soundbite's title limit; undefined when there is none. */
export function soundbiteTitle(texts: readonly string[]): string | undefined {
  const joined = texts.map(oneLine).filter(Boolean).join(' ')
  return joined === '' ? undefined : cut(joined, SOUNDBITE_TITLE_MAX_CHARACTERS)
}

/** A soundbite as the episode's `soundbites` array holds it. */
interface StudioSoundbite {
  _key: string
  _type: 'soundbite'
  start: number
  duration: number
  title?: string
}

/** The stretch's start and duration, and the soundbite it makes, or why it may not be one (Hebrew). */
export type Stretch =
  | {ok: true; start: number; duration: number; soundbite: StudioSoundbite}
  | {ok: false; start?: number; duration?: number; message: string}

// Cue times are read from files to the millisecond: 5.25 - 2.1 must not be 3.1499999999999995.
const toMilliseconds = (seconds: number) => Math.round(seconds * 1000) / 1000

/**
 * The stretch from the cue keyed `firstKey` to the one keyed `lastKey` as a soundbite: it starts at
 * the first's start and lasts to the last's end. `existing` is how many soundbites the episode has.
 */
export function soundbiteFromStretch(
  cues: readonly StretchCue[],
  firstKey: string,
  lastKey: string,
  {existing, episodeDuration, newKey}: {existing: number; episodeDuration: unknown; newKey: () => string},
): Stretch {
  const first = cues.findIndex((cue) => cue.key === firstKey)
  const last = cues.findIndex((cue) => cue.key === lastKey)
  const from = cues[first]
  const to = cues[last]
  if (!from || !to) return {ok: false, message: 'בחרו כתובית ראשונה וכתובית אחרונה מהתמלול.'}
  if (last < first) return {ok: false, message: 'הכתובית האחרונה באה לפני הראשונה: בחרו כתובית אחרונה מאוחרת יותר.'}
  const start = from.start
  const duration = toMilliseconds(to.end - from.start)
  const title = soundbiteTitle(cues.slice(first, last + 1).map((cue) => cue.text))
  const soundbite: StudioSoundbite = {_key: newKey(), _type: 'soundbite', start, duration, ...(title ? {title} : {})}
  const refusal = soundbiteRefusal(soundbite, existing, episodeDuration)
  return refusal === undefined ? {ok: true, start, duration, soundbite} : {ok: false, start, duration, message: refusal}
}
