import {describe, expect, it} from 'vitest'
import {lemma, skeleton, surfaceForms, termsOf} from '../../server/snapshot/hebrew-analysis.ts'
import {words} from '../../server/snapshot/hebrew-text.ts'

const termsOfText = (text: string) => words(text).flatMap(termsOf)

describe('Hebrew analysis', () => {
  it('drops function words, which would otherwise match everything', () => {
    expect(termsOfText('איזה פרק מדבר על ריאקט?')).toEqual(termsOf('ריאקט'))
    expect(termsOfText('what is the episode about')).toEqual([])
  })

  it('brings plural and construct forms to one term', () => {
    const pairs: [string, string][] = [
      ['נגישות', 'נגישים'],
      ['מודלים', 'מודל'],
      ['מכונה', 'מכונת'],
      ['פריסות', 'פריסה'],
      ['webhooks', 'webhook'],
    ]
    for (const [a, b] of pairs) {
      expect(lemma(words(a)[0] ?? ''), `${a} ~ ${b}`).toBe(lemma(words(b)[0] ?? ''))
    }
  })

  it('strips prefix letters cautiously: one, or two only after ו ש כ', () => {
    expect(surfaceForms(words('והמודלים')[0] ?? '')).toEqual(words('והמודלים המודלים מודלים'))
    // מכונה is not מ + כונה: a second letter is never stripped after מ, and לא stays a stop word.
    expect(surfaceForms('מכונה')).toEqual(['מכונה', 'כונה'])
    expect(termsOf('בונה')).not.toContain(termsOf('מכונה')[0])
  })

  it('gives a Hebrew loanword and its English original the same consonant skeleton', () => {
    const pairs: [string, string][] = [
      ['ריאקט', 'react'],
      ['קוברנטיס', 'kubernetes'],
      ['וובהוק', 'webhook'],
      ['פליירייט', 'playwright'],
      ['דיפלוי', 'deploy'],
      ['רולבק', 'rollback'],
      ['קפקא', 'kafka'],
    ]
    for (const [hebrew, english] of pairs) {
      expect(skeleton(words(hebrew)[0] ?? ''), `${hebrew} ~ ${english}`).toBe(skeleton(english))
    }
    expect(skeleton('רדיס')).not.toBe(skeleton('react'))
  })
})
