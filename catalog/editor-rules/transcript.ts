import {MAX_TRANSCRIPT_BYTES, MAX_TRANSCRIPT_CUES, transcriptFaults, type TranscriptFault} from '../v1/transcript.ts'
import {codePointName} from '../v1/xml-text.ts'
import {formatDuration} from './audio-checks.ts'
import type {Verdict} from './validation.ts'

// The episode's transcript in the Studio: the server's rules (catalog/v1/transcript.ts) worded in
// Hebrew for the editors (the import of a file is plugin/lib/transcript-import.ts). A stored cue
// names its speaker by reference or by name; the rules read only its times and text.

const cueOf = (raw: unknown) => {
  if (typeof raw !== 'object' || raw === null) return raw
  const start = 'start' in raw ? raw.start : undefined
  const end = 'end' in raw ? raw.end : undefined
  const text = 'text' in raw ? raw.text : undefined
  return {start, end, text}
}

/** A cue's time to the millisecond when it has a fraction: two cues 0.2 s apart must not read alike. */
function cueTime(seconds: number): string {
  const milliseconds = Math.round(seconds * 1000)
  const fraction = milliseconds % 1000
  const whole = formatDuration(Math.floor(milliseconds / 1000))
  return fraction === 0 ? whole : `${whole}.${String(fraction).padStart(3, '0')}`
}

/** `where` names the cue at an index: a line of the list, or where an imported file has it. */
export function hebrewFault(fault: TranscriptFault, where: (index: number) => string): string {
  const cue = 'index' in fault ? where(fault.index) : ''
  switch (fault.kind) {
    case 'too-many':
      return `יש ${fault.count.toLocaleString('he-IL')} שורות; לכל היותר ${MAX_TRANSCRIPT_CUES.toLocaleString('he-IL')}.`
    case 'too-large':
      return `הטקסט גדול מדי: ${fault.bytes.toLocaleString('he-IL')} בתים; לכל היותר 2,000,000.`
    case 'not-a-cue':
      return `${cue} אינה שורת תמלול: חסרים בה זמן התחלה, זמן סוף או טקסט.`
    case 'empty-text':
      return `${cue}: הטקסט ריק.`
    case 'text-too-long':
      return `${cue}: ${fault.length} תווים; לכל היותר 1,000 בשורה.`
    case 'control-character':
      return `${cue}: יש בה תו בקרה (${codePointName(fault.codePoint)}) שאפליקציות אינן יכולות להציג.`
    case 'backwards':
      return `${cue} מסתיימת (${cueTime(fault.end)}) לא אחרי שהיא מתחילה (${cueTime(fault.start)}).`
    case 'overlap':
      return `${cue} מתחילה ב-${cueTime(fault.start)}, לפני שהקודמת לה מסתיימת (${cueTime(fault.previousEnd)}).`
    case 'past-duration':
      return `${cue} מסתיימת ב-${cueTime(fault.end)}, אחרי סוף הפרק (${cueTime(fault.duration)}).`
  }
}

/** The faults of a transcript in Hebrew, each naming its line; empty when the server would serve it. */
function transcriptFaultsInHebrew(cues: readonly unknown[], duration: unknown): string[] {
  return transcriptFaults(cues.map(cueOf), secondsOf(duration)).map((fault) =>
    hebrewFault(fault, (index) => `שורה ${index + 1}`),
  )
}

/** An episode's duration when it has one: a transcript's times are checked against it. */
export const secondsOf = (duration: unknown) => (typeof duration === 'number' && duration > 0 ? duration : null)

/** The list as a whole, as the server checks it; the first few faults are named, the rest counted. */
export function checkTranscript(cues: readonly unknown[] | undefined, duration: unknown): Verdict {
  if (!cues || cues.length === 0) return true
  const messages = transcriptFaultsInHebrew(cues, duration)
  if (messages.length === 0) return true
  const more = messages.length > 5 ? ` ועוד ${messages.length - 5} בעיות.` : ''
  return messages.slice(0, 5).join(' ') + more
}

/**
 * Why a file is refused by its size alone, or undefined when it may be read: the server's limit on
 * a transcript's text is the file's, checked before a larger file is read or parsed.
 */
export function transcriptFileTooLarge(bytes: number): string | undefined {
  if (bytes <= MAX_TRANSCRIPT_BYTES) return undefined
  return `הקובץ גדול מדי: ${bytes.toLocaleString('he-IL')} בתים; קובץ תמלול הוא לכל היותר ${MAX_TRANSCRIPT_BYTES.toLocaleString('he-IL')} בתים (2MB).`
}
