// An episode's transcript: the rule the Studio and the server share, and the three formats made
// from the cues, each read back by a real captions parser (media-captions, as players use).
import {parseText} from 'media-captions'
import {describe, expect, it} from 'vitest'
import {
  checkedTranscript,
  MAX_TRANSCRIPT_CUES,
  transcriptFaults,
  transcriptJson,
  transcriptSrt,
  transcriptVtt,
  type TranscriptCue,
} from '../../../catalog/v1/transcript.ts'

const cues: TranscriptCue[] = [
  {start: 0, end: 2.5, speaker: 'דנה לוי', text: 'שלום וברוכים הבאים לפרק'},
  {start: 2.5, end: 5.25, speaker: 'אורי כהן', text: 'תודה שהזמנתם אותי'},
  {start: 6, end: 3723.456, speaker: null, text: 'שורה ראשונה\nשורה שנייה'},
]
// What a hostile or careless file might carry in its text, each of which must stay text.
const hostile = 'a --> b <v Mallory>x</v> ]]> &amp; <b>bold</b>'

describe('the transcript rule', () => {
  it('accepts ordered cues within the duration', () => {
    expect(transcriptFaults(cues, 4000)).toEqual([])
  })

  it('names each broken cue: overlapping, backwards, past the duration, empty, control characters, too long', () => {
    const broken = [
      {start: 0, end: 4, speaker: null, text: 'א'},
      {start: 3, end: 5, speaker: null, text: 'חופף'},
      {start: 7, end: 6, speaker: null, text: 'הפוך'},
      {start: 8, end: 9, speaker: null, text: '   '},
      {start: 9, end: 10, speaker: null, text: 'שליטה\u0007'},
      {start: 10, end: 11, speaker: null, text: 'ארוך'.repeat(300)},
      {start: 11, end: 99, speaker: null, text: 'אחרי הסוף'},
      {start: 'x', end: 1, text: 'לא רמז'},
    ]
    expect(transcriptFaults(broken, 20).map((fault) => [fault.kind, 'index' in fault ? fault.index : null])).toEqual([
      ['overlap', 1],
      ['backwards', 2],
      ['empty-text', 3],
      ['control-character', 4],
      ['text-too-long', 5],
      ['past-duration', 6],
      ['not-a-cue', 7],
    ])
  })

  it(`takes ${MAX_TRANSCRIPT_CUES.toLocaleString('en')} cues and refuses one more, and refuses more than 2 MB of text`, () => {
    const many = (count: number) =>
      Array.from({length: count}, (_, index) => ({start: index, end: index + 1, speaker: null, text: `משפט ${index}`}))
    expect(transcriptFaults(many(MAX_TRANSCRIPT_CUES), null)).toEqual([])
    expect(transcriptFaults(many(MAX_TRANSCRIPT_CUES + 1), null)).toEqual([
      {kind: 'too-many', count: MAX_TRANSCRIPT_CUES + 1},
    ])
    const heavy = Array.from({length: 3000}, (_, index) => ({
      start: index,
      end: index + 1,
      speaker: null,
      text: 'ש'.repeat(400),
    }))
    expect(transcriptFaults(heavy, null)[0]).toEqual({kind: 'too-large', bytes: 3000 * 800})
  })

  it('serves trimmed cues with unnamed speakers as null, and nothing of a transcript with a fault', () => {
    expect(checkedTranscript([{start: 0, end: 1, speaker: '  ', text: ' שלום '}], 10)).toEqual({
      ok: true,
      cues: [{start: 0, end: 1, speaker: null, text: 'שלום'}],
    })
    expect(checkedTranscript([{start: 2, end: 1, speaker: null, text: 'x'}], 10).ok).toBe(false)
  })
})

describe('the three formats', () => {
  it('WebVTT names the speakers in voice spans and reads back as the same cues', async () => {
    const vtt = transcriptVtt(cues)
    expect(vtt.split('\n').slice(0, 4)).toEqual([
      'WEBVTT',
      '',
      '00:00:00.000 --> 00:00:02.500',
      '<v דנה לוי>שלום וברוכים הבאים לפרק',
    ])
    expect(vtt).toContain('00:00:06.000 --> 01:02:03.456\nשורה ראשונה\nשורה שנייה')
    const {cues: read, errors} = await parseText(vtt, {type: 'vtt', strict: true, errors: true})
    expect(errors).toEqual([])
    expect(read.map((cue) => [cue.startTime, cue.endTime])).toEqual(cues.map((cue) => [cue.start, cue.end]))
  })

  it('SubRip prefixes the speaker and reads back as the same cues', async () => {
    const srt = transcriptSrt(cues)
    expect(srt.split('\n').slice(0, 3)).toEqual([
      '1',
      '00:00:00,000 --> 00:00:02,500',
      'דנה לוי: שלום וברוכים הבאים לפרק',
    ])
    const {cues: read, errors} = await parseText(srt, {type: 'srt', strict: true, errors: true})
    expect(errors).toEqual([])
    expect(read.map((cue) => [cue.startTime, cue.endTime, cue.text])).toEqual([
      [0, 2.5, 'דנה לוי: שלום וברוכים הבאים לפרק'],
      [2.5, 5.25, 'אורי כהן: תודה שהזמנתם אותי'],
      [6, 3723.456, 'שורה ראשונה\nשורה שנייה'],
    ])
  })

  it('the JSON transcript is Podcasting 2.0 segments', () => {
    expect(transcriptJson(cues)).toEqual({
      version: '1.0.0',
      segments: [
        {speaker: 'דנה לוי', startTime: 0, endTime: 2.5, body: 'שלום וברוכים הבאים לפרק'},
        {speaker: 'אורי כהן', startTime: 2.5, endTime: 5.25, body: 'תודה שהזמנתם אותי'},
        {startTime: 6, endTime: 3723.456, body: 'שורה ראשונה\nשורה שנייה'},
      ],
    })
  })

  it('keeps hostile text as text: one cue stays one cue, blank lines and arrows end nothing', async () => {
    const tricky: TranscriptCue[] = [
      {start: 0, end: 1, speaker: 'Eve > <b>', text: `${hostile}\n\n00:00:05.000 --> 00:00:06.000\nנמשך`},
      {start: 1, end: 2, speaker: null, text: 'אחרון'},
    ]
    const vtt = await parseText(transcriptVtt(tricky), {type: 'vtt', strict: true, errors: true})
    expect(vtt.errors).toEqual([])
    expect(vtt.cues.map((cue) => [cue.startTime, cue.endTime])).toEqual([
      [0, 1],
      [1, 2],
    ])
    expect(vtt.cues[0]?.text).toContain('a --&gt; b &lt;v Mallory&gt;')
    expect(vtt.cues[0]?.text).toMatch(/נמשך$/)
    const srt = await parseText(transcriptSrt(tricky), {type: 'srt', strict: true, errors: true})
    expect(srt.cues.map((cue) => [cue.startTime, cue.endTime])).toEqual([
      [0, 1],
      [1, 2],
    ])
    expect(srt.cues[0]?.text).toMatch(/נמשך$/)
  })
})
