import {z} from 'zod'
import {formatChapterTime} from './chapters.ts'
import {NAMESPACE_TEXT_MAX_CHARACTERS, SOUNDBITE_MAX_SECONDS, SOUNDBITE_MIN_SECONDS} from './contract.ts'

// An episode's soundbites (podcast:soundbite, podcast-namespace docs/tags/soundbite.md): the rule
// the Studio and the server share, and the mapping to the API's `soundbites`. Each soundbite is
// read on its own: one that breaks the rule is left out (reported), never the others or the episode.

/** The namespace: a title past 128 characters may be cut by aggregators. */
export const SOUNDBITE_TITLE_MAX_CHARACTERS = NAMESPACE_TEXT_MAX_CHARACTERS
/** The most soundbites one episode carries: a handful of highlights, not an index of the episode. */
export const MAX_SOUNDBITES = 20

/** A soundbite as the Studio stores it (and the GROQ projection returns it); anything may be missing. */
const soundbiteRowSchema = z.object({
  start: z.number().nullish(),
  duration: z.number().nullish(),
  title: z.string().nullish(),
})

/** What is wrong with one soundbite; the Studio and the server each word these. */
export type SoundbiteFault =
  | {kind: 'not-a-soundbite'}
  | {kind: 'start'}
  | {kind: 'duration'; seconds: number | null}
  | {kind: 'past-duration'; end: number; duration: number}
  | {kind: 'title-too-long'; length: number}

/** Every rule one soundbite breaks; `duration` is the episode's, in seconds, when it is known. */
export function soundbiteFaults(raw: unknown, episodeDuration: number | null | undefined): SoundbiteFault[] {
  const parsed = soundbiteRowSchema.safeParse(raw)
  if (!parsed.success) return [{kind: 'not-a-soundbite'}]
  const {start, duration, title} = parsed.data
  const faults: SoundbiteFault[] = []
  const startValid = start != null && Number.isFinite(start) && start >= 0
  if (!startValid) faults.push({kind: 'start'})
  const durationValid =
    duration != null &&
    Number.isFinite(duration) &&
    duration >= SOUNDBITE_MIN_SECONDS &&
    duration <= SOUNDBITE_MAX_SECONDS
  if (!durationValid) faults.push({kind: 'duration', seconds: duration ?? null})
  if (startValid && durationValid && episodeDuration != null && start + duration > episodeDuration)
    faults.push({kind: 'past-duration', end: start + duration, duration: episodeDuration})
  const length = title?.trim().length ?? 0
  if (length > SOUNDBITE_TITLE_MAX_CHARACTERS) faults.push({kind: 'title-too-long', length})
  return faults
}

/** Seconds as `m:ss`, with the fraction when there is one (a soundbite may start at 73.5 s). */
export function formatSoundbiteTime(seconds: number): string {
  const fraction = seconds - Math.floor(seconds)
  return fraction === 0 ? formatChapterTime(seconds) : `${formatChapterTime(seconds)}${fraction.toFixed(2).slice(1)}`
}

/** A fault in English, for the document problems /status and the log report. */
function describeSoundbiteFault(fault: SoundbiteFault): string {
  switch (fault.kind) {
    case 'not-a-soundbite':
      return 'not a soundbite object'
    case 'start':
      return 'no start time of 0 seconds or more'
    case 'duration':
      return `lasts ${fault.seconds ?? 'no'} seconds, not ${SOUNDBITE_MIN_SECONDS} to ${SOUNDBITE_MAX_SECONDS}`
    case 'past-duration':
      return `ends at ${formatSoundbiteTime(fault.end)}, past the episode's end (${formatSoundbiteTime(fault.duration)})`
    case 'title-too-long':
      return `has a title of ${fault.length} characters, more than ${SOUNDBITE_TITLE_MAX_CHARACTERS}`
  }
}

export interface Soundbite {
  start_seconds: number
  duration_seconds: number
  title: string | null
}

/** The API's soundbites: each valid one, in the order entered; each one left out is reported. */
export function mapSoundbites(
  raw: unknown,
  episodeDuration: number | null,
): {soundbites: Soundbite[]; warnings: string[]} {
  if (raw === null || raw === undefined) return {soundbites: [], warnings: []}
  if (!Array.isArray(raw)) return {soundbites: [], warnings: ['soundbites: left out: not a list']}
  const warnings: string[] = []
  if (raw.length > MAX_SOUNDBITES)
    warnings.push(`soundbites: ${raw.length} soundbites, only the first ${MAX_SOUNDBITES} are served`)
  const soundbites = raw.slice(0, MAX_SOUNDBITES).flatMap((item, index): Soundbite[] => {
    const faults = soundbiteFaults(item, episodeDuration)
    if (faults.length > 0) {
      warnings.push(`soundbites.${index}: left out: ${faults.map(describeSoundbiteFault).join('; ')}`)
      return []
    }
    const row = soundbiteRowSchema.parse(item)
    return [{start_seconds: row.start ?? 0, duration_seconds: row.duration ?? 0, title: row.title?.trim() || null}]
  })
  return {soundbites, warnings}
}
