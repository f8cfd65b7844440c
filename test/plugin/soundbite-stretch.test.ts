// A soundbite taken from a stretch of the transcript in the Studio, without a browser: the first
// cue's start to the last cue's end, titled with what is said, judged by the server's soundbite
// rule before it is added and refused in that rule's Hebrew words.
import {describe, expect, it} from 'vitest'
import {mapSoundbites, SOUNDBITE_TITLE_MAX_CHARACTERS} from '../../catalog/v1/soundbites.ts'
import {checkSoundbites} from '../../catalog/editor-rules/podcast-tags.ts'
import {cueLabel, soundbiteFromStretch, soundbiteTitle, stretchCuesOf} from '../../plugin/lib/soundbite-stretch.ts'

const cue = (key: string, start: number, end: number, text: string) => ({
  _key: key,
  _type: 'transcriptCue',
  start,
  end,
  speakerName: 'דנה',
  text,
})
const transcript = [
  cue('a', 2.1, 5.25, 'שלום לכולם'),
  cue('b', 5.25, 12, 'היום נדבר\nעל ביצועים'),
  cue('c', 13, 30, 'ועל מה שהמכשיר יודע לעשות לבד'),
  cue('d', 60, 200, 'סיכום ארוך'),
]
const cues = stretchCuesOf(transcript)
const options = {existing: 0, episodeDuration: 2767, newKey: () => 'k1'}

describe('a soundbite from a stretch of the transcript', () => {
  it("starts at the first cue's start and lasts to the last cue's end, titled with the cues' text on one line", () => {
    const stretch = soundbiteFromStretch(cues, 'a', 'c', options)
    expect(stretch).toEqual({
      ok: true,
      start: 2.1,
      duration: 27.9,
      soundbite: {
        _key: 'k1',
        _type: 'soundbite',
        start: 2.1,
        duration: 27.9,
        title: 'שלום לכולם היום נדבר על ביצועים ועל מה שהמכשיר יודע לעשות לבד',
      },
    })
    // What is added is what the Studio's rule accepts and the server serves.
    if (!stretch.ok) throw new Error('refused')
    expect(checkSoundbites([stretch.soundbite], 2767)).toBe(true)
    expect(mapSoundbites([stretch.soundbite], 2767)).toEqual({
      soundbites: [{start_seconds: 2.1, duration_seconds: 27.9, title: stretch.soundbite.title}],
      warnings: [],
    })
  })

  it('says its length to the millisecond, as the file timed the cues', () => {
    // 45.7 - 12.3 is 33.400000000000006 in floating point.
    const timed = stretchCuesOf([cue('x', 12.3, 20, 'אחת'), cue('y', 20, 45.7, 'שתיים')])
    expect(soundbiteFromStretch(timed, 'x', 'y', options)).toMatchObject({ok: true, start: 12.3, duration: 33.4})
  })

  it('is one cue when the first and last are the same', () => {
    expect(soundbiteFromStretch(cues, 'c', 'c', options)).toMatchObject({ok: true, start: 13, duration: 17})
  })

  it('refuses a stretch under 15 seconds or over 120 with the rule’s Hebrew message, saying its start and length', () => {
    expect(soundbiteFromStretch(cues, 'a', 'b', options)).toEqual({
      ok: false,
      start: 2.1,
      duration: 9.9,
      message: 'אורך הקטע 9.9 שניות; הוא בין 15 ל-120 שניות.',
    })
    expect(soundbiteFromStretch(cues, 'b', 'd', options)).toEqual({
      ok: false,
      start: 5.25,
      duration: 194.75,
      message: 'אורך הקטע 194.75 שניות; הוא בין 15 ל-120 שניות.',
    })
  })

  it("refuses a stretch past the episode's end, and a 21st soundbite", () => {
    expect(soundbiteFromStretch(cues, 'c', 'c', {...options, episodeDuration: 20})).toMatchObject({
      ok: false,
      message: 'הקטע נגמר ב-0:30, אחרי סוף הפרק (0:20).',
    })
    expect(soundbiteFromStretch(cues, 'a', 'c', {...options, existing: 20})).toMatchObject({
      ok: false,
      message: 'יש 21 קטעים נבחרים; לכל היותר 20.',
    })
    expect(soundbiteFromStretch(cues, 'a', 'c', {...options, existing: 19})).toMatchObject({ok: true})
  })

  it('refuses a last cue before the first, and a cue that is not in the transcript', () => {
    expect(soundbiteFromStretch(cues, 'c', 'a', options)).toEqual({
      ok: false,
      message: 'הכתובית האחרונה באה לפני הראשונה: בחרו כתובית אחרונה מאוחרת יותר.',
    })
    expect(soundbiteFromStretch(cues, 'a', 'gone', options)).toEqual({
      ok: false,
      message: 'בחרו כתובית ראשונה וכתובית אחרונה מהתמלול.',
    })
  })
})

describe("a soundbite's title from the cues", () => {
  it('is cut to the title limit on a word, with an ellipsis, and the rule accepts it', () => {
    const words = Array.from({length: 40}, (_, index) => `מילה${index}`)
    const title = soundbiteTitle([words.slice(0, 20).join(' '), words.slice(20).join(' ')]) ?? ''
    expect(title.length).toBeLessThanOrEqual(SOUNDBITE_TITLE_MAX_CHARACTERS)
    expect(title.endsWith('…')).toBe(true)
    expect(words.join(' ').startsWith(title.slice(0, -1))).toBe(true)
    expect(words).toContain(title.slice(0, -1).split(' ').at(-1))
    expect(checkSoundbites([{start: 0, duration: 30, title}], 300)).toBe(true)
  })

  it('keeps a title at the limit whole, never splits a character in two, and is none without text', () => {
    expect(soundbiteTitle(['א'.repeat(SOUNDBITE_TITLE_MAX_CHARACTERS)])).toBe(
      'א'.repeat(SOUNDBITE_TITLE_MAX_CHARACTERS),
    )
    const emoji = soundbiteTitle(['🎙'.repeat(100)]) ?? ''
    expect(emoji.length).toBeLessThanOrEqual(SOUNDBITE_TITLE_MAX_CHARACTERS)
    expect(emoji).toBe(`${'🎙'.repeat(63)}…`)
    expect(soundbiteTitle([' ', ''])).toBeUndefined()
  })
})

describe("the transcript's cues as the selects list them", () => {
  it('lists the cues with a key, times and text, each by its start time and the start of its text', () => {
    expect(stretchCuesOf([...transcript, {_key: 'x', start: 1}, 'not a cue'])).toHaveLength(4)
    expect(stretchCuesOf(undefined)).toEqual([])
    expect(cueLabel({key: 'b', start: 5.25, end: 12, text: 'היום נדבר\nעל ביצועים'})).toBe(
      '\u20660:05.25\u2069 היום נדבר על ביצועים',
    )
    expect(cueLabel({key: 'e', start: 3723, end: 3730, text: 'א'.repeat(60)})).toBe(
      `\u20661:02:03\u2069 ${'א'.repeat(39)}…`,
    )
  })
})
