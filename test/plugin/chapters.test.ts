import {describe, expect, it} from 'vitest'
import {checkChapters, checkChapterTime} from '../../catalog/editor-rules/chapters.ts'
import {chaptersFromJson} from '../../plugin/lib/chapters-import.ts'

const chapter = (start: string, title = 'כותרת') => ({_key: start, _type: 'chapter', start, title})

describe('chapters in the Studio', () => {
  it('accepts chapters in ascending order from 0:00 within the duration', () => {
    expect(checkChapters([chapter('0:00'), chapter('4:10'), chapter('1:02:03')], 4000)).toBe(true)
    expect(checkChapters([], 10)).toBe(true)
    expect(checkChapters(undefined, undefined)).toBe(true)
  })

  it('refuses chapters out of order, in Hebrew', () => {
    expect(checkChapters([chapter('0:00'), chapter('10:00'), chapter('5:00')], undefined)).toBe(
      'מקטע 3 מתחיל ב-5:00, לא אחרי המקטע שלפניו (10:00): הזמנים עולים מהראשון לאחרון.',
    )
    expect(checkChapters([chapter('0:00'), chapter('0:00')], undefined)).toMatch(/^מקטע 2 מתחיל ב-0:00, לא אחרי/)
  })

  it('refuses a first chapter after 0:00 and a chapter past the duration', () => {
    expect(checkChapters([chapter('0:30')], undefined)).toBe('המקטע הראשון מתחיל ב-0:00 (עכשיו ב-0:30).')
    expect(checkChapters([chapter('0:00'), chapter('30:00')], 1200)).toBe(
      'מקטע 2 מתחיל ב-30:00, אחרי סוף הפרק (20:00).',
    )
  })

  it('says a bad time on the time field itself', () => {
    expect(checkChapterTime('12:30')).toBe(true)
    expect(checkChapterTime('1230')).toBe('"1230" אינו זמן. כתבו mm:ss או h:mm:ss, למשל 12:30 או 1:05:00.')
    // Left to the field's own message, not repeated on the list.
    expect(checkChapters([chapter('1230')], undefined)).toBe(true)
  })
})

describe('importing a chapters file', () => {
  let keys = 0
  const newKey = () => `key${++keys}`

  it('fills the list from a Podcasting 2.0 chapters file, leaving out silent chapters', () => {
    const file = JSON.stringify({
      version: '1.2.0',
      chapters: [
        {startTime: 0, title: 'פתיחה'},
        {startTime: 168.5, title: 'שיחה', url: 'https://example.com/x', img: 'https://example.com/i.jpg'},
        {startTime: 200, toc: false, img: 'https://example.com/map.jpg'},
        {startTime: 3990, title: 'סיום'},
      ],
    })
    expect(chaptersFromJson(file, newKey)).toEqual({
      ok: true,
      chapters: [
        {_key: 'key1', _type: 'chapter', start: '0:00', title: 'פתיחה'},
        {_key: 'key2', _type: 'chapter', start: '2:48', title: 'שיחה', url: 'https://example.com/x'},
        {_key: 'key3', _type: 'chapter', start: '1:06:30', title: 'סיום'},
      ],
    })
  })

  it('says in Hebrew what is wrong with a file that is not one', () => {
    expect(chaptersFromJson('{not json', newKey)).toEqual({
      ok: false,
      message: 'הקובץ אינו JSON תקין. בחרו קובץ מקטעים (chapters.json) בפורמט של Podcasting 2.0.',
    })
    const missing = chaptersFromJson(JSON.stringify({version: '1.2.0', chapters: [{title: 'בלי זמן'}]}), newKey)
    expect(missing.ok).toBe(false)
    expect(!missing.ok && missing.message).toMatch(
      /^הקובץ אינו קובץ מקטעים בפורמט JSON של Podcasting 2\.0 \(chapters\.0\.startTime\): /,
    )
    expect(!missing.ok && missing.message).toMatch(/[\u0590-\u05ff]+.*$/)
    const noVersion = chaptersFromJson(JSON.stringify({chapters: []}), newKey)
    expect(!noVersion.ok && noVersion.message).toMatch(/\(version\)/)
  })
})
