import {sha256} from '@noble/hashes/sha2.js'
import {bytesToHex} from '@noble/hashes/utils.js'
import {z} from 'zod'
import {firstForbiddenCharacter} from './xml-text.ts'

// An episode's transcript: the rules the Studio and the server share (a file an editor imports is
// refused by the same rule as a document that reached the dataset some other way), and the three
// formats podcast apps read, made from the same cues: WebVTT (with `<v Speaker>`, as Apple shows
// speakers), SubRip, and the Podcasting 2.0 JSON transcript.

/** More cues than this is a mistake (or an attack): a two-hour episode has about 2,000. */
export const MAX_TRANSCRIPT_CUES = 20_000
/** An imported file's limit, and the limit of all cue texts together. */
export const MAX_TRANSCRIPT_BYTES = 2_000_000
/** A cue is a line or two of speech; apps show it on screen. */
const CUE_TEXT_MAX_CHARACTERS = 1000

/** The Podcasting 2.0 JSON transcript format's version (podcast-namespace docs/examples/transcripts). */
const JSON_TRANSCRIPT_VERSION = '1.0.0'

/** A cue as it is stored and served: seconds from the start of the audio, and who speaks (null: unnamed). */
export interface TranscriptCue {
  start: number
  end: number
  speaker: string | null
  text: string
}

const transcriptCueSchema = z.object({
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  speaker: z.string().nullish(),
  text: z.string(),
})

/** What is wrong with a transcript; `index` counts cues from 0. The Studio and the server each word these. */
export type TranscriptFault =
  | {kind: 'too-many'; count: number}
  | {kind: 'too-large'; bytes: number}
  | {kind: 'not-a-cue'; index: number}
  | {kind: 'empty-text'; index: number}
  | {kind: 'text-too-long'; index: number; length: number}
  | {kind: 'control-character'; index: number; codePoint: number}
  | {kind: 'backwards'; index: number; start: number; end: number}
  | {kind: 'overlap'; index: number; start: number; previousEnd: number}
  | {kind: 'past-duration'; index: number; end: number; duration: number}

const UTF8 = new TextEncoder()

/** Every rule the cues break, in order; none means the transcript is served. `duration` is the episode's, when known. */
export function transcriptFaults(cues: readonly unknown[], duration: number | null | undefined): TranscriptFault[] {
  if (cues.length > MAX_TRANSCRIPT_CUES) return [{kind: 'too-many', count: cues.length}]
  const faults: TranscriptFault[] = []
  let bytes = 0
  let previousEnd = 0
  cues.forEach((raw, index) => {
    const parsed = transcriptCueSchema.safeParse(raw)
    if (!parsed.success) return void faults.push({kind: 'not-a-cue', index})
    const {start, end, text} = parsed.data
    bytes += UTF8.encode(text).length
    const trimmed = text.trim()
    if (!trimmed) faults.push({kind: 'empty-text', index})
    if (trimmed.length > CUE_TEXT_MAX_CHARACTERS) faults.push({kind: 'text-too-long', index, length: trimmed.length})
    const control = firstForbiddenCharacter(text)
    if (control) faults.push({kind: 'control-character', index, codePoint: control.codePoint})
    if (end <= start) faults.push({kind: 'backwards', index, start, end})
    else if (start < previousEnd) faults.push({kind: 'overlap', index, start, previousEnd})
    if (duration != null && end > duration) faults.push({kind: 'past-duration', index, end, duration})
    previousEnd = Math.max(previousEnd, end)
  })
  if (bytes > MAX_TRANSCRIPT_BYTES) faults.unshift({kind: 'too-large', bytes})
  return faults
}

/** The cues as a server checks them: the cues when they break no rule, else the faults. */
export function checkedTranscript(
  cues: readonly unknown[],
  duration: number | null | undefined,
): {ok: true; cues: TranscriptCue[]} | {ok: false; faults: TranscriptFault[]} {
  const faults = transcriptFaults(cues, duration)
  if (faults.length > 0) return {ok: false, faults}
  return {
    ok: true,
    cues: cues.map((raw) => {
      const {start, end, speaker, text} = transcriptCueSchema.parse(raw)
      return {start, end, speaker: speaker?.trim() || null, text: text.trim()}
    }),
  }
}

/** `01:02:03.456` (WebVTT) or `01:02:03,456` (SubRip). */
function timestamp(seconds: number, separator: '.' | ','): string {
  const milliseconds = Math.round(seconds * 1000)
  const two = (value: number) => String(value).padStart(2, '0')
  const hours = Math.floor(milliseconds / 3_600_000)
  const minutes = Math.floor((milliseconds % 3_600_000) / 60_000)
  const wholeSeconds = Math.floor((milliseconds % 60_000) / 1000)
  return `${two(hours)}:${two(minutes)}:${two(wholeSeconds)}${separator}${String(milliseconds % 1000).padStart(3, '0')}`
}

/** A cue's text as lines with no blank one between them: a blank line would end the cue in both formats. */
const linesOf = (text: string) =>
  text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter(Boolean)

// WebVTT text is markup: `&`, `<` and `>` are written as references, so `-->` and `<v` in what was
// said can never end a cue or start a tag.
const vttText = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

/** The WebVTT file: each cue with its speaker as a voice span. */
export function transcriptVtt(cues: readonly TranscriptCue[]): string {
  const blocks = cues.map((cue) => {
    const voice = cue.speaker ? `<v ${vttText(cue.speaker)}>` : ''
    return `${timestamp(cue.start, '.')} --> ${timestamp(cue.end, '.')}\n${voice}${linesOf(cue.text).map(vttText).join('\n')}`
  })
  return `WEBVTT\n\n${blocks.join('\n\n')}\n`
}

/** The SubRip file: numbered cues, the speaker as a `Name: ` prefix; `-->` in text is written `->`, which no reader takes for a timing. */
export function transcriptSrt(cues: readonly TranscriptCue[]): string {
  const blocks = cues.map((cue, index) => {
    const lines = linesOf(cue.text).map((line) => line.replaceAll('-->', '->'))
    const said = cue.speaker ? [`${cue.speaker.replaceAll('-->', '->')}: ${lines[0] ?? ''}`, ...lines.slice(1)] : lines
    return `${index + 1}\n${timestamp(cue.start, ',')} --> ${timestamp(cue.end, ',')}\n${said.join('\n')}`
  })
  return `${blocks.join('\n\n')}\n`
}

/** The Podcasting 2.0 JSON transcript as this API writes it (podcast-namespace docs/examples/transcripts/transcripts.md). */
export const transcriptDocumentSchema = z
  .object({
    version: z.literal(JSON_TRANSCRIPT_VERSION),
    segments: z.array(
      z.object({
        speaker: z.string().optional().meta({description: 'Who speaks; absent when the cue names no one.'}),
        startTime: z.number().nonnegative().meta({description: 'Seconds from the start of the audio.'}),
        endTime: z.number().nonnegative(),
        body: z.string(),
      }),
    ),
  })
  .meta({
    id: 'TranscriptDocument',
    description: "An episode's transcript in the Podcasting 2.0 JSON transcript format, served as application/json.",
  })

/** The Podcasting 2.0 JSON transcript. */
export function transcriptJson(cues: readonly TranscriptCue[]): z.infer<typeof transcriptDocumentSchema> {
  return {
    version: JSON_TRANSCRIPT_VERSION,
    segments: cues.map((cue) => ({
      ...(cue.speaker ? {speaker: cue.speaker} : {}),
      startTime: cue.start,
      endTime: cue.end,
      body: cue.text,
    })),
  }
}

/** The three formats served for a transcript held in the catalog, in the order the feed lists them. */
export const TRANSCRIPT_FORMATS = [
  {extension: 'vtt', mimeType: 'text/vtt'},
  {extension: 'srt', mimeType: 'application/srt'},
  {extension: 'json', mimeType: 'application/json'},
] as const
export type TranscriptExtension = (typeof TRANSCRIPT_FORMATS)[number]['extension']

export const isTranscriptExtension = (value: string | undefined): value is TranscriptExtension =>
  TRANSCRIPT_FORMATS.some((format) => format.extension === value)

export const transcriptPath = (slug: string, extension: TranscriptExtension) =>
  `episodes/${slug}/transcript.${extension}`

/** The cues as the catalog holds them: the JSON transcript's UTF-8 bytes, off the JS heap on the server. */
export const transcriptBytes = (cues: readonly TranscriptCue[]) => UTF8.encode(JSON.stringify(transcriptJson(cues)))

/** Read back what `transcriptBytes` wrote (the server's own bytes, checked when they were made). */
export function cuesOf(bytes: Uint8Array): TranscriptCue[] {
  const {segments} = transcriptDocumentSchema.parse(JSON.parse(new TextDecoder().decode(bytes)))
  return segments.map((segment) => ({
    start: segment.startTime,
    end: segment.endTime,
    speaker: segment.speaker ?? null,
    text: segment.body,
  }))
}

/**
 * Names this version of the transcript in the episode's item, so a change to what was said changes
 * the item too: its ETag, the change feed and the edge purge all follow the item's bytes.
 */
export const transcriptRevision = (bytes: Uint8Array) => bytesToHex(sha256(bytes)).slice(0, 32)

/** In one line for `/status`: the first few faults, the rest counted. */
export function describeTranscriptFaults(faults: readonly TranscriptFault[]): string {
  const named = faults.slice(0, 3).map((fault) => {
    const cue = 'index' in fault ? `cue ${fault.index + 1}: ` : ''
    switch (fault.kind) {
      case 'too-many':
        return `${fault.count} cues, more than ${MAX_TRANSCRIPT_CUES}`
      case 'too-large':
        return `${fault.bytes} bytes of text, more than ${MAX_TRANSCRIPT_BYTES}`
      case 'not-a-cue':
        return `${cue}not a cue (start, end and text)`
      case 'empty-text':
        return `${cue}empty text`
      case 'text-too-long':
        return `${cue}${fault.length} characters, more than ${CUE_TEXT_MAX_CHARACTERS}`
      case 'control-character':
        return `${cue}a control character U+${fault.codePoint.toString(16).toUpperCase().padStart(4, '0')}`
      case 'backwards':
        return `${cue}ends at ${fault.end} s, not after its start at ${fault.start} s`
      case 'overlap':
        return `${cue}starts at ${fault.start} s, before the cue before it ends at ${fault.previousEnd} s`
      case 'past-duration':
        return `${cue}ends at ${fault.end} s, past the episode's ${fault.duration} s`
    }
  })
  return faults.length > 3 ? `${named.join('; ')} and ${faults.length - 3} more` : named.join('; ')
}
