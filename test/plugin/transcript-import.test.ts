// The Studio's transcript import, without a browser: a WebVTT or SubRip file's text read into cues
// by media-captions and judged by the server's rule, with Hebrew errors naming the file's line, and
// the file's speakers matched to the episode's voices by name.
import {describe, expect, it, vi} from 'vitest'
import {MAX_TRANSCRIPT_BYTES} from '../../catalog/v1/transcript.ts'
import {matchSpeakers, studioTranscript, transcriptFromText} from '../../plugin/lib/transcript-import.ts'

// Counts media-captions' parses, so a refusal can be seen to come before any.
const parsing = vi.hoisted(() => ({calls: 0}))
vi.mock('media-captions', async (importOriginal) => {
  const original = await importOriginal<typeof import('media-captions')>()
  return {
    ...original,
    parseText: (...args: Parameters<typeof original.parseText>) => {
      parsing.calls += 1
      return original.parseText(...args)
    },
  }
})

const vtt = (...blocks: string[]) => `WEBVTT\n\n${blocks.join('\n\n')}\n`

/** The errors of a file that is refused (and fails the test if it is not). */
async function errorsOf(text: string, duration?: number): Promise<string[]> {
  const imported = await transcriptFromText(text, duration)
  if (imported.ok) throw new Error(`expected a refusal, got ${imported.cues.length} cues`)
  return imported.errors
}

describe('reading a WebVTT file', () => {
  it('gives each cue its times, its plain text and the speaker its voice span names, two Hebrew speakers', async () => {
    const file = vtt(
      'NOTE recorded in Tel Aviv',
      '1\n00:00:00.000 --> 00:00:02.500\n<v דנה לוי>שלום וברוכים הבאים &amp; <b>ברוכות</b></v>',
      '2\n00:00:02.500 --> 00:00:05.250 align:start\n<v.loud אורי כהן>תודה שהזמנתם אותי</v>\nשורה שנייה',
      // The same speaker, spelled with extra spaces: one speaker, spelled as first written.
      '00:00:06.000 --> 00:01:02.125\n<v   דנה   לוי >ונתחיל',
      '00:01:03.000 --> 00:01:04.000\nבלי דובר',
    )
    const imported = await transcriptFromText(file, 3000)
    expect(imported).toEqual({
      ok: true,
      format: 'vtt',
      speakers: ['דנה לוי', 'אורי כהן'],
      cues: [
        {start: 0, end: 2.5, speakerName: 'דנה לוי', text: 'שלום וברוכים הבאים & ברוכות'},
        {start: 2.5, end: 5.25, speakerName: 'אורי כהן', text: 'תודה שהזמנתם אותי\nשורה שנייה'},
        {start: 6, end: 62.125, speakerName: 'דנה לוי', text: 'ונתחיל'},
        {start: 63, end: 64, text: 'בלי דובר'},
      ],
    })
  })

  it('keeps the words of each other voice in a cue as theirs, with the name before them', async () => {
    const imported = await transcriptFromText(
      vtt(
        '00:00:01.000 --> 00:00:04.000\n<v דנה לוי>שלום לכולם</v> <v  אורי   כהן>ותודה</v> <v דנה לוי>בבקשה</v>',
        '00:00:04.000 --> 00:00:05.000\n<v אורי כהן>כן</v><v נועה>לא</v>',
      ),
      null,
    )
    expect(imported).toMatchObject({
      ok: true,
      speakers: ['דנה לוי', 'אורי כהן'],
      cues: [
        {speakerName: 'דנה לוי', text: 'שלום לכולם אורי כהן: ותודה דנה לוי: בבקשה'},
        {speakerName: 'אורי כהן', text: 'כן נועה: לא'},
      ],
    })
  })

  it('reads a file that starts with a byte order mark and ends its lines with CRLF', async () => {
    const imported = await transcriptFromText('\uFEFFWEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\n<v נועה>היי\r\n', null)
    expect(imported).toEqual({
      ok: true,
      format: 'vtt',
      speakers: ['נועה'],
      cues: [{start: 1, end: 2, speakerName: 'נועה', text: 'היי'}],
    })
  })
})

describe('reading a SubRip file', () => {
  it('gives each cue its times and its text as it is: a "Name:" prefix is not taken for a speaker', async () => {
    const file =
      '1\r\n00:00:01,000 --> 00:00:02,500\r\nדנה: שלום\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nשורה\r\nועוד שורה\r\n'
    expect(await transcriptFromText(file, 10)).toEqual({
      ok: true,
      format: 'srt',
      speakers: [],
      cues: [
        {start: 1, end: 2.5, text: 'דנה: שלום'},
        {start: 3, end: 4, text: 'שורה\nועוד שורה'},
      ],
    })
  })

  it('refuses a text with no cues at all', async () => {
    expect(await errorsOf('{"version": "1.0.0", "segments": []}')).toEqual([
      'לא נמצאו כתוביות בקובץ. בחרו קובץ WebVTT (שמתחיל ב-WEBVTT) או SubRip (‎.srt).',
    ])
  })
})

describe('a bad file is refused, in Hebrew, naming the line', () => {
  it('a timing that is no time, in WebVTT and in SubRip: the line media-captions names', async () => {
    expect(await errorsOf(vtt('00:00:01.000 --> 00:00:02.000\nא', '00:00:03.000 --> 00:00:xx\nב'))).toEqual([
      'שורה 6 בקובץ: \u206600:00:03.000 --> 00:00:xx\u2069 אינו תזמון תקין. כתבו למשל \u206600:01:02.500 --> 00:01:04.000\u2069.',
    ])
    expect(await errorsOf('1\n00:00:01,000 --> 00:00:02,000\nא\n\n2\n00:00:0x,000 --> 00:00:04,000\nב\n')).toEqual([
      'שורה 6 בקובץ: \u206600:00:0x,000 --> 00:00:04,000\u2069 אינו תזמון תקין. כתבו למשל \u206600:01:02,500 --> 00:01:04,000\u2069.',
    ])
  })

  it('a cue that ends before it starts (which media-captions drops without a word)', async () => {
    expect(await errorsOf(vtt('00:00:01.000 --> 00:00:02.000\nא', '00:00:05.000 --> 00:00:04.500\nב'))).toEqual([
      'הכתובית שבשורה 6 בקובץ מסתיימת (00:04.500) לא אחרי שהיא מתחילה (00:05).',
    ])
    expect(await errorsOf('1\n00:00:01,000 --> 00:00:01,000\nא\n')).toEqual([
      'הכתובית שבשורה 2 בקובץ מסתיימת (00:01) לא אחרי שהיא מתחילה (00:01).',
    ])
  })

  it('a cue that starts before the one before it ends', async () => {
    expect(
      await errorsOf(vtt('00:00:01.000 --> 00:00:03.000\nא', 'NOTE a comment', '00:00:02.750 --> 00:00:04.000\nב')),
    ).toEqual(['הכתובית שבשורה 8 בקובץ מתחילה ב-00:02.750, לפני שהקודמת לה מסתיימת (00:03).'])
  })

  it("a cue past the episode's end, and none when the duration is not known", async () => {
    const file = vtt('00:00:01.000 --> 00:00:02.000\nא', '01:00:00.000 --> 01:00:05.000\nב')
    expect(await errorsOf(file, 3601)).toEqual(['הכתובית שבשורה 6 בקובץ מסתיימת ב-1:00:05, אחרי סוף הפרק (1:00:01).'])
    expect((await transcriptFromText(file, undefined)).ok).toBe(true)
  })

  it('a control character in the text or in a speaker\u2019s name', async () => {
    expect(
      await errorsOf(vtt('00:00:01.000 --> 00:00:02.000\nא', '00:00:03.000 --> 00:00:04.000\nצלצול\u0007')),
    ).toEqual(['הכתובית שבשורה 6 בקובץ: יש בה תו בקרה (U+0007) שאפליקציות אינן יכולות להציג.'])
    expect(await errorsOf(vtt('00:00:01.000 --> 00:00:02.000\n<v דנה\u0001>א'))).toEqual([
      'הכתובית שבשורה 3 בקובץ: בשם הדובר יש תו בקרה (U+0001) שאפליקציות אינן יכולות להציג.',
    ])
  })

  it('a cue with no text, or with only a voice span and spaces', async () => {
    expect(
      await errorsOf(
        vtt(
          '00:00:01.000 --> 00:00:02.000\nא',
          '00:00:03.000 --> 00:00:04.000',
          '00:00:05.000 --> 00:00:06.000\n<v דנה> </v>',
        ),
      ),
    ).toEqual(['הכתובית שבשורה 6 בקובץ: הטקסט ריק.', 'הכתובית שבשורה 8 בקובץ: הטקסט ריק.'])
  })

  it('more than 20,000 cues', async () => {
    const time = (seconds: number) => new Date(seconds * 1000).toISOString().slice(11, 23)
    const cues = Array.from({length: 20_001}, (_, index) => `${time(index)} --> ${time(index + 1)}\nמשפט ${index}`)
    expect(await errorsOf(vtt(...cues))).toEqual(['יש 20,001 שורות; לכל היותר 20,000.'])
    expect((await transcriptFromText(vtt(...cues.slice(1)), null)).ok).toBe(true)
  })

  it('more than 2 MB, refused before media-captions parses it', async () => {
    // Hebrew letters are two bytes each in UTF-8 (and one Latin letter evens it out): 2,000,000 bytes exactly.
    const cue = '00:00:01.000 --> 00:00:02.000\n'
    const shell = vtt(cue).length
    const atLimit = vtt(cue + 'x'.repeat(shell % 2) + 'א'.repeat((MAX_TRANSCRIPT_BYTES - shell - (shell % 2)) / 2))
    expect(new TextEncoder().encode(atLimit).length).toBe(MAX_TRANSCRIPT_BYTES)
    const before = parsing.calls
    expect(await errorsOf(`${atLimit}x`)).toEqual([
      'הקובץ גדול מדי: 2,000,001 בתים; קובץ תמלול הוא לכל היותר 2,000,000 בתים (2MB).',
    ])
    expect(parsing.calls).toBe(before)
    // At the limit the file is read: it is then refused for its one cue's length, not its size.
    const read = await errorsOf(atLimit)
    expect(parsing.calls).toBe(before + 1)
    expect(read[0]).toMatch(/^הכתובית שבשורה 3 בקובץ: .* תווים; לכל היותר 1,000 בשורה\.$/)
  })
})

describe("matching the file's speakers to the episode's voices", () => {
  const voices = [
    {_id: 'voice-dana', name: 'דנה לוי'},
    {_id: 'voice-george', name: 'ג׳ורג׳ חדאד'},
    {_id: 'voice-jenny', name: 'Jenny Katz'},
    {_id: 'voice-ori-1', name: 'אורי כהן'},
    {_id: 'voice-ori-2', name: 'אורי  כהן'},
  ]

  it('by name, spaces, case and a geresh typed as an apostrophe aside; a name no voice has, or two have, is left open', () => {
    expect(matchSpeakers([' דנה  לוי', "ג'ורג' חדאד", 'JENNY KATZ', 'אורי כהן', 'מאזין מהקהל'], voices)).toEqual([
      {name: ' דנה  לוי', voiceId: 'voice-dana'},
      {name: "ג'ורג' חדאד", voiceId: 'voice-george'},
      {name: 'JENNY KATZ', voiceId: 'voice-jenny'},
      {name: 'אורי כהן'},
      {name: 'מאזין מהקהל'},
    ])
  })

  it('a host who is also a guest is one voice, matched', () => {
    expect(
      matchSpeakers(
        ['דנה לוי'],
        [voices[0], voices[0]].filter((voice) => voice !== undefined),
      ),
    ).toEqual([{name: 'דנה לוי', voiceId: 'voice-dana'}])
  })

  it("makes the array's items: a reference for a matched speaker, the name for one kept as it is", () => {
    let key = 0
    const items = studioTranscript(
      [
        {start: 0, end: 1, speakerName: 'דנה לוי', text: 'א'},
        {start: 1, end: 2, speakerName: 'מאזין מהקהל', text: 'ב'},
        {start: 2, end: 3, text: 'ג'},
      ],
      new Map([['דנה לוי', 'voice-dana']]),
      () => `key${(key += 1)}`,
    )
    expect(items).toEqual([
      {
        _key: 'key1',
        _type: 'transcriptCue',
        start: 0,
        end: 1,
        speaker: {_type: 'reference', _ref: 'voice-dana'},
        text: 'א',
      },
      {_key: 'key2', _type: 'transcriptCue', start: 1, end: 2, speakerName: 'מאזין מהקהל', text: 'ב'},
      {_key: 'key3', _type: 'transcriptCue', start: 2, end: 3, text: 'ג'},
    ])
  })
})
