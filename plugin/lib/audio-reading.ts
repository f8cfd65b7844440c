import {formatDuration} from '../../catalog/editor-rules/audio-checks.ts'
import {ENCLOSURE_FORMATS, isEnclosureMimeType} from '../../catalog/v1/contract.ts'

// When a duration music-metadata reads in the browser may be trusted, and what the input does with
// it. A parser finds what it is told to look for: random bytes labelled audio/mpeg parse as a few
// milliseconds of ADTS or MPEG audio. So a reading counts only when the file's own first bytes name
// the format its type declares, the parser read that format, and the length fits the file's size.

/** What a file's first bytes say it is: an ID3 tag or an MPEG layer III frame, or an `ftyp` box and its brand. */
export type Sniffed = {family: 'mp3'} | {family: 'mp4'; brand: string} | undefined

/** How many bytes from the start `sniffAudio` looks at. */
export const SNIFF_BYTES = 12

export function sniffAudio(head: Uint8Array): Sniffed {
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to))
  if (head.length >= 3 && ascii(0, 3) === 'ID3') return {family: 'mp3'}
  // Frame sync (11 bits set), then layer bits 01: MPEG layer III.
  const [first = 0, second = 0] = head
  if (first === 0xff && (second & 0xe0) === 0xe0 && ((second >> 1) & 0b11) === 0b01) return {family: 'mp3'}
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') return {family: 'mp4', brand: ascii(8, 12).replace(/\W/g, '')}
  return undefined
}

/** What music-metadata said about the file. */
export interface ParsedFormat {
  container?: string | undefined
  codec?: string | undefined
  duration?: number | undefined
  bitrate?: number | undefined
}

export type UnreadReason = 'unsure-format' | 'no-duration' | 'implausible' | 'too-much-to-read' | 'failed'

export type Verdict = {trusted: true; seconds: number} | {trusted: false; reason: UnreadReason}

/** The lowest and highest bitrates an episode's audio (or video) plausibly has, in bits per second. */
const MIN_BITS_PER_SECOND = 8_000
const MAX_BITS_PER_SECOND = 20_000_000
/** Tags and cover art a file may carry besides its audio, in bytes. */
const TAG_ALLOWANCE_BYTES = 2 * 1024 * 1024

/** Whether the parser read the family the first bytes name: MPEG layer III, or an MP4 whose brand it reports. */
function parserAgrees(sniffed: NonNullable<Sniffed>, format: ParsedFormat): boolean {
  if (sniffed.family === 'mp3') return format.container === 'MPEG' && /Layer 3/i.test(format.codec ?? '')
  return format.container?.split('/')[0] === sniffed.brand
}

/**
 * Whether a duration is plausible for a file of `bytes`: its implied bitrate is one audio can have,
 * and, when the parser gives the bitrate, the file holds about that much audio (at least half of it,
 * at most four times it plus room for tags).
 */
export function plausibleDuration(seconds: number, bytes: number, bitrate: number | undefined): boolean {
  const implied = (bytes * 8) / seconds
  if (implied < MIN_BITS_PER_SECOND || implied > MAX_BITS_PER_SECOND + (TAG_ALLOWANCE_BYTES * 8) / seconds) return false
  if (bitrate === undefined || !(bitrate > 0)) return true
  const audioBytes = (seconds * bitrate) / 8
  return bytes >= audioBytes / 2 && bytes <= audioBytes * 4 + TAG_ALLOWANCE_BYTES
}

/** The whole seconds to use from a reading, or why not to use it. */
export function trustReading(reading: {
  declaredType: string
  sniffed: Sniffed
  format: ParsedFormat
  bytes: number
}): Verdict {
  const {declaredType, sniffed, format, bytes} = reading
  const type = declaredType.toLowerCase()
  const declared = isEnclosureMimeType(type) ? ENCLOSURE_FORMATS[type].family : undefined
  if (!sniffed || declared !== sniffed.family || !parserAgrees(sniffed, format))
    return {trusted: false, reason: 'unsure-format'}
  const duration = format.duration
  if (duration === undefined || !Number.isFinite(duration) || duration <= 0)
    return {trusted: false, reason: 'no-duration'}
  if (!plausibleDuration(duration, bytes, format.bitrate)) return {trusted: false, reason: 'implausible'}
  return {trusted: true, seconds: Math.max(1, Math.round(duration))}
}

/** Why the Studio could not use a file's duration, in Hebrew, before it asks the editor to type it. */
export function unreadMessage(reason: UnreadReason | undefined): string {
  const why: Record<UnreadReason, string> = {
    'unsure-format': 'תוכן הקובץ אינו תואם את סוג הקובץ',
    'no-duration': 'הקובץ אינו מציין משך',
    implausible: 'המשך שנקרא אינו מתאים לגודל הקובץ',
    'too-much-to-read': 'קריאת הקובץ ארכה יותר מדי',
    failed: 'הקובץ לא נקרא',
  }
  return `לא הצלחנו לקרוא את משך הקובץ (${why[reason ?? 'failed']}): הקלידו אותו בשדה "משך".`
}

/**
 * What the input does with a trusted reading: fill `duration` when it is empty or still holds the
 * previous file's reading, leave it when it already says the same, and otherwise ask the editor,
 * since they typed it.
 */
export function durationChoice(choice: {
  typed: number | undefined
  previousReading: number | undefined
  reading: number
}): 'set' | 'same' | 'ask' {
  const {typed, previousReading, reading} = choice
  if (typed === reading) return 'same'
  if (typed === undefined || typed === previousReading) return 'set'
  return 'ask'
}

/** The question the input asks before replacing a typed duration with the file's, in Hebrew. */
export function replaceQuestion(typed: number, reading: number): {message: string; button: string} {
  return {
    message: `בשדה "משך" הוקלד ${formatDuration(typed)}, ובקובץ נמדד ${formatDuration(reading)}.`,
    button: `השתמשו במשך מהקובץ (${formatDuration(reading)})`,
  }
}
