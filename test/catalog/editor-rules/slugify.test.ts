import {describe, expect, it} from 'vitest'
import {checkSlug} from '../../../catalog/editor-rules/validation.ts'
import {slugify} from '../../../catalog/editor-rules/slugify.ts'

describe('slugify', () => {
  it('transliterates real Hebrew titles into valid slugs', () => {
    const cases: [string, string][] = [
      ['פרק 27: למידת מכונה על המכשיר', 'prk-27-lmidt-mchona-al-hmchshir'],
      ['פרק 22: קאש, CDN ושתי הבעיות הקשות', 'prk-22-kash-cdn-vshti-hviot-hkshot'],
      ['צלילה עמוקה ל-ETag ובקשות מותנות', 'tzlila-amoka-l-etag-vvkshot-motnot'],
      ['פרק 6: תוכן מובנה ו-GROQ', 'prk-6-tochn-movna-v-groq'],
      ['אופיר זקן', 'ofir-zkn'],
    ]
    for (const [title, slug] of cases) {
      expect(slugify(title)).toBe(slug)
      expect(checkSlug(slugify(title))).toBe(true)
    }
  })

  it('reads vowels from niqqud, and shin from sin', () => {
    expect(slugify('שָׁלוֹם עוֹלָם')).toBe('shalom-olam')
    expect(slugify('בְּרֵאשִׁית')).toBe('breshit')
    expect(slugify('מִשְׂרָד')).toBe('misrad')
    expect(slugify('פֶּרֶק רִאשׁוֹן')).toBe('perek-rishon')
  })

  it('handles final letters and soft consonants', () => {
    expect(slugify('סוף')).toBe('sof') // ף
    expect(slugify('ערך')).toBe('arch') // ך
    expect(slugify('חלוץ')).toBe('chlotz') // ץ
    expect(slugify('אדם')).toBe('adm') // ם
    expect(slugify('לשון')).toBe('lshon') // ן
    expect(slugify('בית ספר')).toBe('bit-sfr') // ב hard first, פ soft inside
  })

  it('spells geresh loanwords as they sound, and doubled ו and י as consonants', () => {
    expect(slugify('ג׳אווה וקוטלין')).toBe('java-vkotlin')
    expect(slugify("ג'אווה")).toBe('java')
    expect(slugify('צ׳אט בוט')).toBe('chat-bot')
    expect(slugify('ספרייה')).toBe('sfrya')
  })

  it('keeps Latin text, drops accents and punctuation, and never returns an invalid slug', () => {
    expect(slugify('Café déjà vu: React 19!')).toBe('cafe-deja-vu-react-19')
    expect(slugify('  --שלום--  ')).toBe('shlom')
    expect(slugify('!!! ???')).toBe('')
    const long = slugify('מערכות מבוזרות '.repeat(20))
    expect(long.length).toBeLessThanOrEqual(128)
    expect(long.endsWith('-')).toBe(false)
    expect(checkSlug(long)).toBe(true)
  })
})
