// Text normalisation for searching Hebrew content: niqqud and cantillation marks are dropped,
// final letters fold to their base forms, Latin text is lower-cased. (What a word is indexed as,
// prefixes and endings included, is hebrew-analysis.ts.)

const MARKS = /[\u0591-\u05C7]/g
const FINAL_FORMS: Record<string, string> = {ך: 'כ', ם: 'מ', ן: 'נ', ף: 'פ', ץ: 'צ'}
const WORD = /[\p{L}\p{N}]+(?:[.+#][\p{L}\p{N}]+)*[+#]*/gu

export function normalize(text: string): string {
  return text
    .normalize('NFC')
    .replace(MARKS, '')
    .replace(/[\u05F3\u05F4'"]/g, '') // geresh and gershayim inside words: ג׳ני -> גני, צה"ל -> צהל
    .replace(/[ךםןףץ]/g, (letter) => FINAL_FORMS[letter] ?? letter)
    .toLowerCase()
}

export function words(text: string): string[] {
  return normalize(text).match(WORD) ?? []
}
