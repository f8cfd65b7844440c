import {SLUG_MAX_LENGTH} from '../v1/contract.ts'

// Sanity's default slugify drops every Hebrew letter. This one transliterates: consonants by a
// common Israeli romanization, vowels from niqqud when the title has them, and the usual guesses
// when it does not (ו and י inside a word read as vowels, א and a final ה as "a", ב כ פ soft
// after the first letter of a word). Loanwords spelled with a geresh (ג׳אווה) come out as their English
// sounds. Anything else that is not a Latin letter or digit becomes a dash.

const LETTERS: Record<string, {hard: string; soft?: string; geresh?: string}> = {
  א: {hard: ''},
  ב: {hard: 'b', soft: 'v'},
  ג: {hard: 'g', geresh: 'j'},
  ד: {hard: 'd'},
  ה: {hard: 'h'},
  ו: {hard: 'v'},
  ז: {hard: 'z', geresh: 'zh'},
  ח: {hard: 'ch'},
  ט: {hard: 't'},
  י: {hard: 'y'},
  כ: {hard: 'k', soft: 'ch'},
  ך: {hard: 'ch'},
  ל: {hard: 'l'},
  מ: {hard: 'm'},
  ם: {hard: 'm'},
  נ: {hard: 'n'},
  ן: {hard: 'n'},
  ס: {hard: 's'},
  ע: {hard: ''},
  פ: {hard: 'p', soft: 'f'},
  ף: {hard: 'f'},
  צ: {hard: 'tz', geresh: 'ch'},
  ץ: {hard: 'tz', geresh: 'ch'},
  ק: {hard: 'k'},
  ר: {hard: 'r'},
  ש: {hard: 'sh'},
  ת: {hard: 't', geresh: 'th'},
}

const VOWELS: Record<string, string> = {
  '\u05B1': 'e', // hataf segol
  '\u05B2': 'a', // hataf patah
  '\u05B3': 'o', // hataf qamats
  '\u05B4': 'i', // hiriq
  '\u05B5': 'e', // tsere
  '\u05B6': 'e', // segol
  '\u05B7': 'a', // patah
  '\u05B8': 'a', // qamats
  '\u05B9': 'o', // holam
  '\u05BA': 'o', // holam for vav
  '\u05BB': 'u', // qubuts
  '\u05C7': 'o', // qamats qatan
}
const DAGESH = '\u05BC'
const SIN_DOT = '\u05C2'
const GERESH = /^['\u05F3\u2019]/
const MARK = /[\u0591-\u05C7]/

interface Letter {
  base: string
  marks: string
  geresh: boolean
}

/** Splits a Hebrew word into letters with their niqqud and geresh. */
function lettersOf(word: string): Letter[] {
  const letters: Letter[] = []
  for (let index = 0; index < word.length;) {
    const base = word[index] ?? ''
    let marks = ''
    index += 1
    while (index < word.length && MARK.test(word[index] ?? '')) marks += word[index++] ?? ''
    const geresh = GERESH.test(word.slice(index))
    if (geresh) index += 1
    letters.push({base, marks, geresh})
  }
  return letters
}

function vowelOf(marks: string): string | undefined {
  for (const mark of marks) if (VOWELS[mark]) return VOWELS[mark]
  return undefined
}

function transliterateWord(word: string): string {
  const letters = lettersOf(word)
  const pointed = letters.some((letter) => vowelOf(letter.marks) !== undefined)
  let out = ''
  for (let index = 0; index < letters.length; index++) {
    const letter = letters[index]
    const rule = letter && LETTERS[letter.base]
    if (!letter || !rule) {
      out += letter?.base ?? ''
      continue
    }
    const {base, marks} = letter
    const first = index === 0
    const last = index === letters.length - 1
    const next = letters[index + 1]
    const vowel = vowelOf(marks)
    // A doubled ו or י is one consonant (v, y) in unpointed spelling: אווה, ספרייה.
    if ((base === 'ו' || base === 'י') && next?.base === base && !vowel) {
      out += (base === 'ו' ? 'v' : 'y') + (vowelOf(next.marks) ?? '')
      index += 1
      continue
    }
    if (base === 'ו' && !first) {
      if (marks.includes(DAGESH) && !vowel)
        out += 'u' // shuruk
      else if (marks.includes('\u05B9') || marks.includes('\u05BA'))
        out += 'o' // holam male
      else if (vowel) out += `v${vowel}`
      else out += pointed ? 'v' : 'o'
      continue
    }
    if (base === 'י' && !first && !vowel) {
      // After a pointed i or e, י only lengthens it (בְּרֵאשִׁית); otherwise it is the vowel.
      const previousVowel = vowelOf(letters[index - 1]?.marks ?? '')
      if (previousVowel !== 'i' && previousVowel !== 'e') out += 'i'
      continue
    }
    if ((base === 'א' || base === 'ע') && !vowel) {
      // Silent before a vowel letter (a single ו or י); otherwise most often "a" (אבטחה, פודקאסט, ג׳אווה).
      const vowelLetterFollows = (next?.base === 'ו' || next?.base === 'י') && letters[index + 2]?.base !== next.base
      if (!vowelLetterFollows && (first || !pointed)) out += 'a'
      continue
    }
    if (base === 'ה' && last && !first && !marks.includes(DAGESH)) {
      out += 'a'
      continue
    }
    let sound = rule.hard
    if (letter.geresh && rule.geresh) sound = rule.geresh
    else if (base === 'ש' && marks.includes(SIN_DOT)) sound = 's'
    else if (rule.soft && !first && !marks.includes(DAGESH)) sound = rule.soft
    out += sound + (vowel ?? '')
  }
  return out
}

/**
 * A slug the API accepts (`^[a-z0-9-]+$`, at most 128 characters) from a Hebrew, English or mixed
 * title. Returns an empty string when nothing usable is left, so the Studio's required rule says so.
 */
export function slugify(title: string): string {
  const words =
    // eslint-disable-next-line no-misleading-character-class -- Hebrew points listed on purpose, matched one code point at a time
    title.normalize('NFC').match(/[\u05D0-\u05EA][\u05D0-\u05EA\u0591-\u05C7'\u05F3\u2019]*|[^\u05D0-\u05EA]+/g) ?? []
  const latin = words
    .map((word) =>
      /^[\u05D0-\u05EA]/.test(word) ? transliterateWord(word) : word.normalize('NFKD').replace(/[\u0300-\u036f]/g, ''),
    )
    .join('')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  if (latin.length <= SLUG_MAX_LENGTH) return latin
  const cut = latin.slice(0, SLUG_MAX_LENGTH + 1)
  const lastDash = cut.lastIndexOf('-')
  return (lastDash > 0 ? cut.slice(0, lastDash) : cut.slice(0, SLUG_MAX_LENGTH)).replace(/-+$/, '')
}
