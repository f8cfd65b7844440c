// The transcript index's bookkeeping: an empty transcript is none, the terms of removed transcripts
// stay in the dictionary until removals outnumber both the allowance and the live items, a batch
// goes on after such a renumbering, and a query without prefix matching matches whole terms only.
import {describe, expect, it} from 'vitest'
import {termsOf} from '../../server/snapshot/hebrew-analysis.ts'
import {MATCHING} from '../../server/snapshot/search-documents.ts'
import {TranscriptIndex, type TermQuery} from '../../server/snapshot/transcript-index.ts'

/** A word's terms as written: no prefix, no typo. */
const exactly = (word: string): TermQuery[] => termsOf(word).map((term) => ({term, prefix: false, typos: 0}))
const whoSays = (index: TranscriptIndex, word: string) =>
  [...index.search(exactly(word), 10, MATCHING.weights).keys()].sort()

describe('the transcript index', () => {
  it('holds no transcript for an empty or blank text, and an empty one takes the old one out', () => {
    const index = new TranscriptIndex()
    index.add('episodes/a', '')
    index.add('episodes/b', '  \n ')
    expect(index.size).toBe(0)
    index.add('episodes/c', 'react')
    index.add('episodes/c', '')
    expect(index.size).toBe(0)
    expect(whoSays(index, 'react')).toEqual([])
  })

  it("keeps a replaced transcript's terms while removals are within the allowance", () => {
    const index = new TranscriptIndex()
    index.add('episodes/a', 'react')
    index.add('episodes/a', 'kubernetes')
    expect(index.termCount).toBe(2)
    expect(whoSays(index, 'react')).toEqual([])
  })

  it('drops the removed terms once removals pass the allowance, and not when they only reach it', () => {
    const index = new TranscriptIndex(1)
    index.add('episodes/a', 'react')
    index.add('episodes/a', 'kubernetes')
    expect(index.termCount, 'one removal is within an allowance of one').toBe(2)
    index.add('episodes/a', 'test')
    expect(index.termCount, 'two removals pass it').toBe(1)
    expect(whoSays(index, 'test')).toEqual(['episodes/a'])
  })

  it('keeps the removed terms while removals are no more than the live items', () => {
    const index = new TranscriptIndex(1)
    index.add('episodes/a', 'react')
    index.add('episodes/b', 'kubernetes')
    index.add('episodes/c', 'test')
    index.add('episodes/a', 'docker')
    // Two removals, past the allowance, but as many as the two items left when the second is taken out.
    index.add('episodes/b', 'linux')
    expect(index.termCount).toBe(5)
    expect(whoSays(index, 'linux')).toEqual(['episodes/b'])
  })

  it('counts no removal for an item it never held', () => {
    const index = new TranscriptIndex(1)
    index.add('episodes/a', 'react')
    index.add('episodes/a', 'kubernetes')
    index.remove('episodes/never-added')
    expect(index.size).toBe(1)
    expect(index.termCount).toBe(2)
  })

  it('files the words of a batch under the right terms after a renumbering in the middle of it', () => {
    const index = new TranscriptIndex(0)
    const batch = index.batch()
    batch.add('episodes/a', 'react')
    // Replacing a's transcript renumbers everything: react is dropped, kubernetes comes first.
    batch.add('episodes/a', 'kubernetes')
    batch.add('episodes/b', 'react')
    expect(whoSays(index, 'react')).toEqual(['episodes/b'])
    expect(whoSays(index, 'kubernetes')).toEqual(['episodes/a'])
  })

  it('matches a longer term only when the query asks for prefixes', () => {
    const index = new TranscriptIndex()
    index.add('episodes/a', 'reactive')
    const query = (prefix: boolean): TermQuery[] => [{term: 'react', prefix, typos: 0}]
    expect(index.search(query(false), 1, MATCHING.weights).size).toBe(0)
    expect([...index.search(query(true), 1, MATCHING.weights).keys()]).toEqual(['episodes/a'])
  })

  it('names every query term an item matched, and every term of it that matched them', () => {
    const index = new TranscriptIndex()
    index.add('episodes/a', 'react test')
    const match = index.search([...exactly('react'), ...exactly('test')], 1, MATCHING.weights).get('episodes/a')
    expect([...(match?.queryTerms ?? [])].sort()).toEqual(['react', 'test'])
    expect([...(match?.matched ?? [])].sort()).toEqual(['react', 'test'])
  })
})
