// Text normalisation for searching Hebrew content: niqqud and cantillation marks are dropped,
// final letters fold to their base forms, Latin text is lower-cased, and a word with one-letter
// prefixes (ו, ה, ב, ל, מ, ש, כ, as in "והמודלים") also counts as the bare word.

const MARKS = /[\u0591-\u05C7]/g
const FINAL_FORMS: Record<string, string> = {ך: 'כ', ם: 'מ', ן: 'נ', ף: 'פ', ץ: 'צ'}
const PREFIX_LETTERS = new Set(['ו', 'ה', 'ב', 'ל', 'מ', 'ש', 'כ'])
const WORD = /[\p{L}\p{N}]+(?:[.+#][\p{L}\p{N}]+)*[+#]*/gu
const MIN_STEM = 2

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

const isHebrew = (word: string) => /^[\u05D0-\u05EA]/.test(word)

/** The word and its forms without up to two one-letter prefixes ("ובמודלים" -> "במודלים", "מודלים"). */
export function stems(word: string): string[] {
  const forms = [word]
  let rest = word
  for (let stripped = 0; stripped < 2 && isHebrew(rest) && PREFIX_LETTERS.has(rest[0] ?? '') && rest.length - 1 >= MIN_STEM; stripped++) {
    rest = rest.slice(1)
    forms.push(rest)
  }
  return forms
}
