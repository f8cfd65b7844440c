import {transcriptFaults} from '../../catalog/v1/transcript.ts'
import {codePointName, firstForbiddenCharacter} from '../../catalog/v1/xml-text.ts'
import {hebrewFault, secondsOf, transcriptFileTooLarge} from '../../catalog/editor-rules/transcript.ts'

// The import of a WebVTT or SubRip file into an episode's transcript, with its speakers matched to
// the catalog's voices; what it reads is judged by the rules in catalog/editor-rules/transcript.ts.

/** A cue read from a file. The speaker is the name a WebVTT voice span (`<v Name>`) gives. */
export interface ImportedCue {
  start: number
  end: number
  speakerName?: string
  text: string
}

type TranscriptImport =
  {ok: true; format: 'vtt' | 'srt'; cues: ImportedCue[]; speakers: string[]} | {ok: false; errors: string[]}

const UTF8 = new TextEncoder()
// WebVTT's signature: the file starts with "WEBVTT", then a space, a tab or the end of the line.
const WEBVTT_HEADER = /^\uFEFF?WEBVTT(?:[ \t\r\n]|$)/
// Lines as media-captions counts them, so a line it names is the line found here.
const LINE_BREAK = /\r\n|\r|\n/
// A timing line split as media-captions splits it: start, arrow, end, then cue settings.
const ARROW = /[\s\t]*-->[\s\t]+/
const SPACES = /[\s\t]+/
// media-captions' error codes that refuse a file; a cue's position or alignment (3, 5) means nothing in a transcript.
const TIMESTAMP_ERROR = 2
const IGNORED_ERRORS = new Set([3, 5])

/** A left-to-right run inside a Hebrew message (a timing line), isolated so it reads in its own order. */
const ltr = (text: string) => `\u2066${text}\u2069`

type Captions = typeof import('media-captions')
/**
 * media-captions, loaded when a file is imported rather than with this module: its cue class
 * extends the browser's VTTCue wherever a `document` exists, and the worker in which `sanity schema
 * validate` loads the schema (which imports this module's rules) has a document and no VTTCue.
 */
const loadCaptions = (): Promise<Captions> => import('media-captions')

/** The start and end a timing line gives, read by media-captions' own timestamp parser. */
function timingOf(
  line: string,
  format: 'vtt' | 'srt',
  parseVTTTimestamp: Captions['parseVTTTimestamp'],
): {start: number; end: number} | undefined {
  // SubRip writes the milliseconds after a comma, as media-captions' SubRip parser reads them.
  const [startText = '', trailing = ''] = (format === 'srt' ? line.replaceAll(',', '.') : line).split(ARROW)
  const start = parseVTTTimestamp(startText)
  const end = parseVTTTimestamp(trailing.split(SPACES)[0] ?? '')
  return start === null || end === null ? undefined : {start, end}
}

/**
 * A cue's plain text and the first voice it names: tags dropped, character references replaced. A
 * cue where other voices speak too has one speaker all the same, so each change of voice after the
 * first is written into the text as `Name: ` before the words: nothing said is put in another's mouth.
 */
function plainCue(nodes: ReturnType<Captions['tokenizeVTTCue']>): {text: string; voice?: string} {
  let text = ''
  let voice: string | undefined
  let speaking: string | undefined
  const visit = (node: ReturnType<Captions['tokenizeVTTCue']>[number]) => {
    if (node.type === 'text') return void (text += node.data)
    const named = node.type === 'v' ? node.voice?.trim() : undefined
    if (named && voice === undefined) voice = named
    else if (named && !sameName(named, speaking ?? ''))
      text += `${/\S$/.test(text) ? ' ' : ''}${normalizedName(named)}: `
    if (named) speaking = named
    node.children.forEach(visit)
  }
  nodes.forEach(visit)
  return {text, voice}
}

/**
 * A WebVTT or SubRip file's text (told apart by WebVTT's `WEBVTT` header) as cues, or what is wrong
 * with it in Hebrew, each naming the file's line. media-captions parses; the server's rule
 * (transcriptFaults) judges the cues, against the episode's duration when it is known. A WebVTT
 * voice span gives the cue's speaker; SubRip's `Name: ` prefixes stay in the text, since a colon
 * in what was said would make a speaker of it. Equal names (spaces, case, geresh) are spelled as
 * they first appear.
 */
export async function transcriptFromText(text: string, duration: unknown): Promise<TranscriptImport> {
  const tooLarge = transcriptFileTooLarge(UTF8.encode(text).length)
  if (tooLarge) return {ok: false, errors: [tooLarge]}
  const format = WEBVTT_HEADER.test(text) ? 'vtt' : 'srt'
  const example = format === 'vtt' ? '00:01:02.500 --> 00:01:04.000' : '00:01:02,500 --> 00:01:04,000'
  const lines = text.replace(/^\uFEFF/, '').split(LINE_BREAK)
  const {parseText, parseVTTTimestamp, tokenizeVTTCue} = await loadCaptions()
  const parsed = await parseText(text.replace(/^\uFEFF/, ''), {type: format, errors: true})
  const errors = parsed.errors
    .filter((error) => !IGNORED_ERRORS.has(error.code))
    .map((error) =>
      error.code === TIMESTAMP_ERROR
        ? `שורה ${error.line} בקובץ: ${ltr(lines[error.line - 1]?.trim() ?? '')} אינו תזמון תקין. כתבו למשל ${ltr(example)}.`
        : `שורה ${error.line} בקובץ: הקובץ אינו קובץ WebVTT או SubRip תקין.`,
    )

  // Each timing line that both times read from. media-captions drops a cue that ends before it
  // starts without a word (its range check is inverted in 1.0.4), so those are found here.
  const timings = lines.flatMap((line, index) => {
    const timing = line.includes('-->') ? timingOf(line, format, parseVTTTimestamp) : undefined
    return timing ? [{line: index + 1, ...timing}] : []
  })
  const cueAtLine = (line: number) => `הכתובית שבשורה ${line} בקובץ`
  for (const timing of timings)
    if (timing.end <= timing.start)
      errors.push(
        hebrewFault({kind: 'backwards', index: 0, start: timing.start, end: timing.end}, () => cueAtLine(timing.line)),
      )
  if (errors.length > 0) return {ok: false, errors}

  // The parsed cues are the timing lines' in the file's order: each is found at the next line with its times.
  let next = 0
  const lineOfCue = parsed.cues.map((cue) => {
    while (next < timings.length && (timings[next]?.start !== cue.startTime || timings[next]?.end !== cue.endTime))
      next += 1
    next += 1
    return timings[next - 1]?.line
  })
  const where = (index: number) => {
    const line = lineOfCue[index]
    return line === undefined ? `כתובית ${index + 1} בקובץ` : cueAtLine(line)
  }

  const speakers: string[] = []
  const cues = parsed.cues.map((cue): ImportedCue => {
    const {text: said, voice} = format === 'vtt' ? plainCue(tokenizeVTTCue(cue)) : {text: cue.text}
    const name = voice === undefined ? undefined : normalizedName(voice)
    const speakerName = name === undefined ? undefined : speakers.find((known) => sameName(known, name))
    if (name !== undefined && speakerName === undefined) speakers.push(name)
    return {
      start: cue.startTime,
      end: cue.endTime,
      ...(name ? {speakerName: speakerName ?? name} : {}),
      text: said.trim(),
    }
  })
  if (cues.length === 0)
    return {ok: false, errors: ['לא נמצאו כתוביות בקובץ. בחרו קובץ WebVTT (שמתחיל ב-WEBVTT) או SubRip (‎.srt).']}

  const faults = transcriptFaults(cues, secondsOf(duration)).map((fault) => hebrewFault(fault, where))
  cues.forEach((cue, index) => {
    const control = cue.speakerName === undefined ? undefined : firstForbiddenCharacter(cue.speakerName)
    if (control)
      faults.push(
        `${where(index)}: בשם הדובר יש תו בקרה (${codePointName(control.codePoint)}) שאפליקציות אינן יכולות להציג.`,
      )
  })
  return faults.length > 0 ? {ok: false, errors: faults} : {ok: true, format, cues, speakers}
}

// Names as editors and files write them: spaces, case, niqqud and a geresh typed as an apostrophe aside.
const collator = new Intl.Collator('he', {sensitivity: 'base'})
const normalizedName = (name: string) => name.trim().replace(/\s+/gu, ' ').replace(/['’]/gu, '׳').replace(/["”]/gu, '״')
const sameName = (one: string, other: string) => collator.compare(normalizedName(one), normalizedName(other)) === 0

/** A voice an episode's speaker may be: its guests and the podcast's hosts. */
export interface CandidateVoice {
  _id: string
  name: string
}

/**
 * Each speaker the file names with the one voice of that name, when there is exactly one; a name
 * no voice has, or two voices have, is the editor's to decide.
 */
export function matchSpeakers(
  speakers: readonly string[],
  voices: readonly CandidateVoice[],
): {name: string; voiceId?: string}[] {
  return speakers.map((name) => {
    const ids = [...new Set(voices.filter((voice) => sameName(voice.name, name)).map((voice) => voice._id))]
    return ids.length === 1 && ids[0] !== undefined ? {name, voiceId: ids[0]} : {name}
  })
}

/** A cue as the episode's `transcript` array holds it. */
interface StudioTranscriptCue {
  _key: string
  _type: 'transcriptCue'
  start: number
  end: number
  speaker?: {_type: 'reference'; _ref: string}
  speakerName?: string
  text: string
}

/**
 * The imported cues as the array's items: a speaker the editor matched to a voice (`voiceOf`, by
 * the name as `transcriptFromText` spells it) is a reference to it, any other keeps its name.
 */
export function studioTranscript(
  cues: readonly ImportedCue[],
  voiceOf: ReadonlyMap<string, string>,
  newKey: () => string,
): StudioTranscriptCue[] {
  return cues.map(({start, end, speakerName, text}) => {
    const voiceId = speakerName === undefined ? undefined : voiceOf.get(speakerName)
    return {
      _key: newKey(),
      _type: 'transcriptCue',
      start,
      end,
      ...(voiceId !== undefined ? {speaker: {_type: 'reference', _ref: voiceId}} : speakerName ? {speakerName} : {}),
      text,
    }
  })
}
