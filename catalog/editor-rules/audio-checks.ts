import type {Verdict} from './validation.ts'

// What the Studio says about an episode's audio, as pure functions for `rule.custom()`: the typed
// duration against the one read from the uploaded file, and an episode with no audio at all.

/** How far a typed duration may be from the file's before the editor is warned (players round differently). */
const DURATION_TOLERANCE_SECONDS = 2

/** Seconds as the Studio shows a duration: mm:ss, or h:mm:ss from an hour on. */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.round(totalSeconds)
  const [hours, minutes, rest] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
  const twoDigits = (value: number) => String(value).padStart(2, '0')
  return hours > 0 ? `${hours}:${twoDigits(minutes)}:${twoDigits(rest)}` : `${twoDigits(minutes)}:${twoDigits(rest)}`
}

/** A duration read from a file, in the whole seconds the feed's itunes:duration and the API carry. */
export function wholeSeconds(duration: number | undefined): number | undefined {
  if (duration === undefined || !Number.isFinite(duration) || duration <= 0) return undefined
  return Math.max(1, Math.round(duration))
}

/** A typed duration more than two seconds away from the uploaded file's is a warning naming both. */
export function checkDurationAgainstFile(typed: number | undefined, measured: number | undefined): Verdict {
  if (typed === undefined || measured === undefined) return true
  if (Math.abs(typed - measured) <= DURATION_TOLERANCE_SECONDS) return true
  return `המשך שהוקלד (${formatDuration(typed)}) שונה מהמשך שנמדד בקובץ האודיו (${formatDuration(measured)}) ביותר מ-${DURATION_TOLERANCE_SECONDS} שניות.`
}

export const NO_AUDIO = 'לפרק אין אודיו: הוא יופיע ב-API, אבל לא בפיד, עד שיועלה קובץ או יוזן קישור חיצוני.'

/** An episode without an uploaded file or an external URL is served by the API but has no feed item. */
export function checkHasAudio(audio: {file?: string | undefined; url?: string | undefined}): Verdict {
  return audio.file || audio.url ? true : NO_AUDIO
}
