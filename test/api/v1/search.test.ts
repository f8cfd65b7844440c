// The search endpoint's hit mapping and parameters, as plain functions.
import {describe, expect, it} from 'vitest'
import {parseSearchRequest, searchEnvelope, searchResults, type RankedHit} from '../../../server/api/v1/search.ts'

const ranked = (collection: RankedHit['collection'], slug: string, score: number): RankedHit => ({
  collection,
  slug,
  title: `כותרת ${slug}`,
  url: `https://site.test/${collection}/${slug}`,
  api_url: `https://api.test/api/v1/${collection}/${slug}.json`,
  score,
  snippet: '… קטע …',
  cue: null,
})

describe('searchResults', () => {
  it('names each hit by its item type, keeps the order and the score, and counts what matched', () => {
    const hits = [ranked('voices', 'noa', 9.5), ranked('episodes', 'ep-1', 7), ranked('meetups', 'talk', 1.25)]
    const results = searchEnvelope.parse(searchResults(hits, hits.length, 2))
    expect(results.data).toEqual([
      {
        type: 'voice',
        slug: 'noa',
        title: 'כותרת noa',
        url: 'https://site.test/voices/noa',
        api_url: 'https://api.test/api/v1/voices/noa.json',
        score: 9.5,
        snippet: '… קטע …',
        cue: null,
      },
      expect.objectContaining({type: 'episode', slug: 'ep-1', score: 7}),
    ])
    expect(results.pagination).toEqual({limit: 2, count: 2, total: 3})
    expect(searchResults(hits, hits.length, 10).data.map((hit) => hit.type)).toEqual(['voice', 'episode', 'meetup'])
    expect(searchResults([], 0, 10)).toEqual({data: [], pagination: {limit: 10, count: 0, total: 0}})
  })
})

describe('parseSearchRequest', () => {
  const parse = (query: string) => parseSearchRequest(new URLSearchParams(query))
  it('reads q trimmed and limit, defaulting to 10 and ignoring other parameters', () => {
    expect(parse('q=+%D7%A8%D7%99%D7%90%D7%A7%D7%98+&cursor=x&utm_source=y')).toEqual({
      ok: true,
      request: {query: 'ריאקט', limit: 10},
    })
    expect(parse('q=kafka&limit=50')).toEqual({ok: true, request: {query: 'kafka', limit: 50}})
  })

  it('says what is wrong with q or limit', () => {
    expect(parse('')).toEqual({ok: false, reason: expect.stringMatching(/^q is required/)})
    expect(parse('q=%20')).toEqual({ok: false, reason: expect.stringMatching(/^q is required/)})
    expect(parse(`q=${'a'.repeat(201)}`)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^q must be at most 200 characters; got 201/),
    })
    expect(parse('q=a&q=b')).toEqual({ok: false, reason: expect.stringMatching(/^q is given more than once/)})
    expect(parse('q=a&limit=1&limit=2')).toEqual({ok: false, reason: expect.stringMatching(/^limit is given more/)})
    expect(parse('q=a&limit=51')).toEqual({ok: false, reason: expect.stringMatching(/^limit must be .* got "51"/)})
  })
})
