// The Podcasting 2.0 tags in the Studio (soundbites, a season's name, a license, other versions of
// the media): the server's rules worded in Hebrew, as the schemas' custom rules return them.
import {describe, expect, it} from 'vitest'
import {
  checkAlternateEnclosures,
  checkLicense,
  checkSeasonName,
  checkSoundbites,
} from '../../../catalog/editor-rules/podcast-tags.ts'

const soundbite = (start: number, duration: number, title?: string) => ({
  _key: `${start}`,
  _type: 'soundbite',
  start,
  duration,
  ...(title === undefined ? {} : {title}),
})
const version = (url: string, fields: Record<string, unknown> = {}) => ({
  _key: url,
  _type: 'alternateEnclosure',
  url,
  type: 'audio/opus',
  length: 1000,
  ...fields,
})

describe('soundbites in the Studio', () => {
  it('accepts soundbites of 15 to 120 seconds within the episode', () => {
    expect(checkSoundbites([soundbite(0, 15), soundbite(73.5, 120, 'למה')], 300)).toBe(true)
    expect(checkSoundbites([soundbite(180, 120)], 300)).toBe(true)
    expect(checkSoundbites([soundbite(5000, 60)], undefined)).toBe(true)
    expect(checkSoundbites(undefined, 300)).toBe(true)
  })

  it('refuses a soundbite of 10 seconds and one of more than 120, in Hebrew', () => {
    expect(checkSoundbites([soundbite(0, 30), soundbite(100, 10)], 300)).toBe(
      'קטע 2: אורך הקטע 10 שניות; הוא בין 15 ל-120 שניות.',
    )
    expect(checkSoundbites([soundbite(0, 121)], 300)).toBe('קטע 1: אורך הקטע 121 שניות; הוא בין 15 ל-120 שניות.')
  })

  it('refuses a soundbite that ends past the episode, in Hebrew', () => {
    expect(checkSoundbites([soundbite(250, 60)], 300)).toBe('קטע 1: הקטע נגמר ב-5:10, אחרי סוף הפרק (5:00).')
    expect(checkSoundbites([soundbite(1934.5, 75)], 2000)).toBe('קטע 1: הקטע נגמר ב-33:29.50, אחרי סוף הפרק (33:20).')
  })

  it('refuses a soundbite without a duration, or a title past 128 characters', () => {
    expect(checkSoundbites([{_key: 'a', start: 10}], 300)).toBe('קטע 1: חסר אורך: 15 עד 120 שניות.')
    expect(checkSoundbites([soundbite(0, 30, 'א'.repeat(129))], 300)).toBe(
      'קטע 1: הכותרת ארוכה מדי: 129 תווים; לכל היותר 128.',
    )
  })
})

describe("a season's name in the Studio", () => {
  it('goes with a season number and stays within 128 characters', () => {
    expect(checkSeasonName('עונה 2: מהשרת ועד המכשיר', 2)).toBe(true)
    expect(checkSeasonName(undefined, undefined)).toBe(true)
    expect(checkSeasonName('עונה בלי מספר', undefined)).toBe('לשם עונה צריך מספר עונה: מלאו את השדה "עונה".')
    expect(checkSeasonName('א'.repeat(129), 2)).toBe('שם העונה ארוך מדי: 129 תווים; לכל היותר 128.')
  })
})

describe('a license in the Studio', () => {
  it('accepts a known identifier alone, and a custom one with the URL of its text', () => {
    expect(checkLicense({identifier: 'cc-by-4.0'})).toBe(true)
    expect(checkLicense({identifier: 'arr'})).toBe(true)
    expect(checkLicense({identifier: 'our-terms-v1', url: 'https://codetalks.example/license'})).toBe(true)
    expect(checkLicense(undefined)).toBe(true)
    expect(checkLicense({})).toBe(true)
  })

  it('refuses an unknown license without a URL, an upper-case identifier and an http URL, in Hebrew', () => {
    expect(checkLicense({identifier: 'our-terms-v1'})).toMatch(
      /^"our-terms-v1" אינו רישיון מוכר \(arr, cc0-1\.0, cc-by-4\.0, .*\)\. לרישיון אחר צריך קישור לנוסח המלא שלו\.$/,
    )
    expect(checkLicense({identifier: 'CC-BY-4.0'})).toBe('מזהה הרישיון נכתב באותיות קטנות: "cc-by-4.0".')
    expect(checkLicense({identifier: 'רישיון שלנו', url: 'https://codetalks.example/license'})).toMatch(
      /^"רישיון שלנו" אינו מזהה רישיון/,
    )
    expect(checkLicense({identifier: 'cc-by-4.0', url: 'http://creativecommons.org/licenses/by/4.0/'})).toMatch(
      /^הקישור לרישיון מתחיל ב-https:\/\//,
    )
    expect(checkLicense({url: 'https://creativecommons.org/licenses/by/4.0/'})).toBe(
      'חסר מזהה הרישיון, למשל cc-by-4.0.',
    )
  })
})

describe('other versions of the media in the Studio', () => {
  it('accepts versions with an https URL, a MIME type and a size, one of them default', () => {
    expect(
      checkAlternateEnclosures([
        version('https://mirror.test/1.mp3', {type: 'audio/mpeg', default: true}),
        version('https://media.test/1.opus', {bitrate: 32000, title: 'איכות נמוכה'}),
        version('https://media.test/1.mp4', {type: 'video/mp4', height: 720, default: false}),
      ]),
    ).toBe(true)
    expect(checkAlternateEnclosures(undefined)).toBe(true)
  })

  it('refuses two defaults once for the list, in Hebrew', () => {
    expect(
      checkAlternateEnclosures([
        version('https://a.test/1.mp3', {default: true}),
        version('https://b.test/1.mp3', {default: true}),
      ]),
    ).toBe('2 גרסאות מסומנות כברירת המחדל; רק אחת יכולה להיות: הקובץ הראשי עצמו בכתובת אחרת.')
  })

  it('refuses an http URL, a type that is not MIME, a missing size and a long title, naming the version', () => {
    expect(checkAlternateEnclosures([version('https://media.test/1.opus'), version('http://media.test/1.opus')])).toBe(
      'גרסה 2: הקישור מתחיל ב-https:// וכתוב באותיות לטיניות (אותיות אחרות ורווחים בקידוד אחוזים).',
    )
    expect(checkAlternateEnclosures([version('https://media.test/1.opus', {type: 'opus'})])).toBe(
      'גרסה 1: "opus" אינו סוג קובץ (MIME), למשל audio/mpeg, audio/opus או video/mp4.',
    )
    expect(checkAlternateEnclosures([version('https://media.test/1.opus', {length: undefined})])).toBe(
      'גרסה 1: חסר גודל הקובץ בבתים (מספר שלם).',
    )
    expect(checkAlternateEnclosures([version('https://media.test/1.opus', {title: 'א'.repeat(33)})])).toBe(
      'גרסה 1: הכותרת ארוכה מדי: 33 תווים; לכל היותר 32.',
    )
  })
})
