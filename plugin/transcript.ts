import {MAX_TRANSCRIPT_CUES, transcriptFaults, type TranscriptFault} from '../server/api/v1/transcript.ts'
import {formatDuration} from './audio-checks.ts'
import type {Verdict} from './validation.ts'

// The episode's transcript in the Studio: the server's rules (server/api/v1/transcript.ts) worded in
// Hebrew for the editors. A stored cue names its speaker by reference or by name; the rules read
// only its times and text.

const cueOf = (raw: unknown) => {
  if (typeof raw !== 'object' || raw === null) return raw
  const start = 'start' in raw ? raw.start : undefined
  const end = 'end' in raw ? raw.end : undefined
  const text = 'text' in raw ? raw.text : undefined
  return {start, end, text}
}

function hebrewFault(fault: TranscriptFault): string {
  const cue = 'index' in fault ? `שורה ${fault.index + 1}` : ''
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
      return `${cue}: יש בה תו בקרה (U+${fault.codePoint.toString(16).toUpperCase().padStart(4, '0')}) שאפליקציות אינן יכולות להציג.`
    case 'backwards':
      return `${cue} מסתיימת (${formatDuration(fault.end)}) לא אחרי שהיא מתחילה (${formatDuration(fault.start)}).`
    case 'overlap':
      return `${cue} מתחילה ב-${formatDuration(fault.start)}, לפני שהשורה שלפניה מסתיימת (${formatDuration(fault.previousEnd)}).`
    case 'past-duration':
      return `${cue} מסתיימת ב-${formatDuration(fault.end)}, אחרי סוף הפרק (${formatDuration(fault.duration)}).`
  }
}

/** The faults of a transcript in Hebrew, each naming its line; empty when the server would serve it. */
export function transcriptFaultsInHebrew(cues: readonly unknown[], duration: unknown): string[] {
  const seconds = typeof duration === 'number' && duration > 0 ? duration : null
  return transcriptFaults(cues.map(cueOf), seconds).map(hebrewFault)
}

/** The list as a whole, as the server checks it; the first few faults are named, the rest counted. */
export function checkTranscript(cues: readonly unknown[] | undefined, duration: unknown): Verdict {
  if (!cues || cues.length === 0) return true
  const messages = transcriptFaultsInHebrew(cues, duration)
  if (messages.length === 0) return true
  const more = messages.length > 5 ? ` ועוד ${messages.length - 5} בעיות.` : ''
  return messages.slice(0, 5).join(' ') + more
}
