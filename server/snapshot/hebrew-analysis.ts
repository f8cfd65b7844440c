import {normalize} from './hebrew-text.ts'

// Search analysis for Hebrew catalog text: what a word is indexed and searched as.
// Words are normalised (niqqud dropped, final letters folded, lower case), function words are
// dropped, a Hebrew word also counts without its one-letter prefixes (ו, ה, ב, ל, מ, ש, כ) and
// without its plural or construct ending (מודלים, מודלי -> מודל; נגישות, נגישים -> נגיש).

const PREFIX_LETTERS = new Set(['ו', 'ה', 'ב', 'ל', 'מ', 'ש', 'כ'])
// After these, a second prefix may follow (וה, וב, של, שה, כש); after the others, stripping a
// second letter mostly makes false stems (מכונה is not מ+כ+ונה).
const FIRST_OF_TWO_PREFIXES = new Set(['ו', 'ש', 'כ'])
// Folded like the words they are compared with (final mem becomes mem).
const HEBREW_SUFFIXES = ['יות', 'ים', 'ות', 'ית', 'ה', 'ת', 'י'].map(normalize)
const MIN_HEBREW_STEM = 3

/** Words that say nothing about what is sought, in the questions people ask about a podcast. */
const STOP_WORDS = new Set(
  [
    ...'על בלי עם של את מה מי איך למה מתי איפה כמה האם זה זו זאת הוא היא הם הן אני אנחנו אתם לי לנו לך גם רק כל או אם כי אבל לא כן עוד יותר מאוד אפשר צריך רוצה רציתי מישהו משהו דבר יש אין איזה איזו אילו שמדבר שמדברים מדבר מדברים מדברת דיברו דיבר פרק פרקים הרצאה הרצאות בפודקאסט פודקאסט'.split(
      ' ',
    ),
    ...'the a an of to in on for and or is are was with about how what which who why when episode episodes talk talks podcast any there'.split(
      ' ',
    ),
  ].map(normalize),
)

const isHebrew = (word: string) => /^[\u05D0-\u05EA]/.test(word)

/** A Hebrew word without its plural or construct ending; an English word without a plural `s`. */
export function lemma(word: string): string {
  if (isHebrew(word)) {
    const suffix = HEBREW_SUFFIXES.find(
      (candidate) => word.endsWith(candidate) && word.length - candidate.length >= MIN_HEBREW_STEM,
    )
    return suffix ? word.slice(0, -suffix.length) : word
  }
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word
}

/** The word as written and without its prefix letters, longest first; none for a stop word. */
export function surfaceForms(word: string): string[] {
  if (STOP_WORDS.has(word)) return []
  const forms = [word]
  const first = word[0] ?? ''
  if (!isHebrew(word) || !PREFIX_LETTERS.has(first) || word.length - 1 < MIN_HEBREW_STEM) return forms
  const once = word.slice(1)
  if (!STOP_WORDS.has(once)) forms.push(once)
  const second = once[0] ?? ''
  if (FIRST_OF_TWO_PREFIXES.has(first) && PREFIX_LETTERS.has(second) && once.length - 1 >= MIN_HEBREW_STEM)
    forms.push(once.slice(1))
  return forms
}

/** What a word is indexed and searched as: the lemma of each surface form. */
export function termsOf(word: string): string[] {
  return [...new Set(surfaceForms(word).map(lemma))]
}

// Consonant skeletons, so a Hebrew loanword meets its English original: ריאקט and react are both
// "rkt", קוברנטיס and kubernetes "kbrnts", וובהוק and webhook "bhk".
const HEBREW_CONSONANTS: Record<string, string> = {
  ב: 'b',
  ג: 'g',
  ד: 'd',
  ז: 'z',
  ח: 'h',
  ט: 't',
  כ: 'k',
  ל: 'l',
  מ: 'm',
  נ: 'n',
  ס: 's',
  פ: 'p',
  צ: 's',
  ק: 'k',
  ר: 'r',
  ש: 's',
  ת: 't',
}
const ENGLISH_RULES: [RegExp, string][] = [
  [/wr/g, 'r'],
  [/gh/g, ''],
  [/ph/g, 'f'],
  [/ck/g, 'k'],
  [/[cs]h/g, 's'],
  [/th/g, 't'],
  [/c(?=[eiy])/g, 's'],
  [/x/g, 'ks'],
  [/[ckq]/g, 'k'],
  [/[fp]/g, 'p'],
  [/[bvw]/g, 'b'],
  [/j/g, 'g'],
  [/[aeiouy]/g, ''],
]

export function skeleton(word: string): string {
  let consonants = ''
  if (isHebrew(word)) {
    for (let index = 0; index < word.length; index++) {
      const letter = word[index] ?? ''
      if (letter === 'ו') {
        // A doubled vav is a consonant (w or v); a single one is a vowel.
        if (word[index + 1] === 'ו') {
          consonants += 'b'
          index++
        }
        continue
      }
      if (letter === 'ה') {
        if (index < word.length - 1 && index > 0) consonants += 'h'
        continue
      }
      consonants += HEBREW_CONSONANTS[letter] ?? ''
    }
  } else {
    consonants = ENGLISH_RULES.reduce(
      (text, [pattern, replacement]) => text.replace(pattern, replacement),
      word.replace(/[^a-z]/g, ''),
    )
  }
  return consonants.replace(/(.)\1+/g, '$1')
}

/** Skeletons shorter than this match too much by chance. */
export const MIN_SKELETON = 3

/**
 * Developer terms people write as Hebrew loanwords whose catalog text says them in Hebrew, with
 * the Hebrew words the catalog uses. Tags and tech stacks need no entry: they are English already.
 */
export const DEVELOPER_TERMS: Readonly<Record<string, readonly string[]>> = {
  deploy: ['פריסה', 'פריסות'],
  rollback: ['אחורה', 'הפיכה'],
  monolith: ['מונולית'],
  frontend: ['דפדפן'],
  testing: ['בדיקות'],
  accessibility: ['נגישות'],
  migration: ['מיגרציות'],
  performance: ['ביצועים'],
  security: ['אבטחה'],
  observability: ['ניטור'],
}
