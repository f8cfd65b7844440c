// The transcripts' index scores as MiniSearch scores a field, in far less memory: for any texts
// and any query (prefixes, typos, words said many times), its scores are MiniSearch's own for a
// field of boost 1, and it stays that way across removals and the renumbering they lead to. Under
// a flood of edits it holds only what the live transcripts say. No sockets.
import fc from 'fast-check'
import MiniSearch from 'minisearch'
import {describe, expect, it} from 'vitest'
import {termsOf} from '../../server/snapshot/hebrew-analysis.ts'
import {words} from '../../server/snapshot/hebrew-text.ts'
import {MATCHING, termQuery} from '../../server/snapshot/search-documents.ts'
import {TranscriptIndex, type TermQuery} from '../../server/snapshot/transcript-index.ts'

// A small vocabulary, so that texts share words, prefixes and near misses.
const VOCABULARY = [
  'דיפלוי',
  'דיפלויים',
  'הדיפלוי',
  'קוברנטיס',
  'react',
  'reactive',
  'ריאקט',
  'נגישות',
  'בדיקות',
  'test',
  'tests',
]
// Words, and now and then one said hundreds of times (past what a pair's count holds).
const chunk = fc.oneof(
  {weight: 9, arbitrary: fc.constantFrom(...VOCABULARY)},
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...VOCABULARY), fc.integer({min: 200, max: 700}))
      .map(([word, times]) => Array.from({length: times}, () => word).join(' ')),
  },
)
const text = fc.array(chunk, {maxLength: 40}).map((chosen) => chosen.join(' '))

const queriesOf = (query: string): TermQuery[] => words(query).flatMap(termsOf).map(termQuery)

/** MiniSearch over the same texts as its one field, and its raw scores (before the quality factor). */
function miniSearchScores(texts: ReadonlyMap<string, string>, query: string): Map<string, number> {
  const search = new MiniSearch<{id: string; transcript: string}>({
    fields: ['transcript'],
    tokenize: words,
    processTerm: termsOf,
    searchOptions: {fuzzy: MATCHING.fuzzy, prefix: MATCHING.prefix, weights: MATCHING.weights},
  })
  search.addAll([...texts].map(([id, transcript]) => ({id, transcript})))
  return new Map(
    search.search(query).map((result) => [String(result.id), result.score / (result.queryTerms.length || 1)]),
  )
}

/** A word's terms as written: no prefix, no typo. */
const exactly = (word: string): TermQuery[] => termsOf(word).map((term) => ({term, prefix: false, typos: 0}))

const scoresOf = (index: TranscriptIndex, query: string, documentCount: number) =>
  new Map([...index.search(queriesOf(query), documentCount, MATCHING.weights)].map(([id, match]) => [id, match.score]))

const expectSameScores = (actual: ReadonlyMap<string, number>, expected: ReadonlyMap<string, number>) => {
  expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort())
  for (const [id, score] of expected) expect(actual.get(id)).toBeCloseTo(score, 9)
}

describe('the transcript index', () => {
  it('scores every item as MiniSearch scores a field of boost 1, after removals too', () => {
    fc.assert(
      fc.property(
        fc.array(text, {minLength: 1, maxLength: 12}),
        fc.array(fc.nat(), {maxLength: 6}),
        fc.array(fc.constantFrom(...VOCABULARY, 'דיפל', 'reac', 'נגישוט'), {minLength: 1, maxLength: 3}),
        (texts, removals, queryWords) => {
          const live = new Map(texts.map((said, number) => [`episodes/e${number}`, said]))
          // Renumbered after two removals (and as soon as they outnumber the live items).
          const index = new TranscriptIndex(2)
          for (const [id, said] of live) index.add(id, said)
          for (const removal of removals) {
            const id = `episodes/e${removal % texts.length}`
            index.remove(id)
            live.delete(id)
          }
          const query = queryWords.join(' ')
          // Every item counts in the average length, as MiniSearch counts a document whose field is empty.
          const everyItem = new Map(
            [...texts.keys()].map((number) => [`episodes/e${number}`, live.get(`episodes/e${number}`) ?? '']),
          )
          expectSameScores(scoresOf(index, query, everyItem.size), miniSearchScores(everyItem, query))
        },
      ),
      {numRuns: 150},
    )
  })

  it('names the query terms and the transcript terms that matched', () => {
    const index = new TranscriptIndex()
    const said = 'אמרנו הדיפלויים שלנו'
    index.add('episodes/a', said)
    const [match] = index.search(queriesOf('דיפלוי'), 1, MATCHING.weights).values()
    expect([...(match?.queryTerms ?? [])].sort()).toEqual(termsOf('דיפלוי').sort())
    // Terms of what was said, a prefix or a typo away from the query's included.
    const saidTerms = words(said).flatMap(termsOf)
    expect([...(match?.matched ?? [])].filter((term) => !saidTerms.includes(term))).toEqual([])
    expect(match?.matched.size).toBeGreaterThan(0)
  })

  it('scores as MiniSearch does past the first 1024 distinct terms, each word said twice', () => {
    // The per-transcript counts grow past 1024 terms in the middle of the first pass.
    const many = Array.from({length: 1100}, (_, number) => `w${number}`).join(' ')
    const texts = new Map([
      ['episodes/a', `${many} ${many}`],
      ['episodes/b', 'w0 w1024 w1099'],
    ])
    const index = new TranscriptIndex()
    for (const [id, said] of texts) index.add(id, said)
    for (const query of ['w0', 'w1023', 'w1024', 'w1099'])
      expectSameScores(scoresOf(index, query, texts.size), miniSearchScores(texts, query))
  })

  it('holds only what the live transcripts say under a flood of edits', () => {
    const index = new TranscriptIndex()
    // 20,000 edits of 50 episodes, each time a word no transcript said before.
    for (let edit = 0; edit < 20_000; edit++)
      index.add(`episodes/e${edit % 50}`, `מילה${edit} ${VOCABULARY[edit % VOCABULARY.length]}`)
    expect(index.size).toBe(50)
    // The words of removed transcripts are gone: each live one has its own word, and the vocabulary's.
    expect(index.termCount).toBeLessThan(50 * 4 + 1100 * 4)
    const said = index.search(exactly('מילה19999'), 50, MATCHING.weights)
    expect([...said.keys()]).toEqual(['episodes/e49'])
    expect(index.search(exactly('מילה5'), 50, MATCHING.weights).size).toBe(0)
  })
})
