// The typed client's sync (client/src/sync.ts) through its fetch seam, no sockets: an initial sync,
// deltas from its token over every page, a 410 that starts over by itself, and a mirror left as it
// was when a page fails. (test/integration/change-feed.integration.test.ts proves it on a real server.)
import {describe, expect, it} from 'vitest'
import {CatalogProblem, createCatalogClient, type CatalogMirror} from '../../client/src/index.ts'
import {jsonAnswer, problemAnswer, scriptedFetch, type SeenRequest} from '../helpers/scripted-fetch.ts'

const BASE = 'http://catalog.test/api/v1'

type FeedChange = {type: 'episode' | 'meetup' | 'voice'; slug: string; deleted: boolean; item?: object}
const upsert = (type: FeedChange['type'], slug: string, title: string): FeedChange => ({
  type,
  slug,
  deleted: false,
  item: {slug, title},
})
const deletion = (type: FeedChange['type'], slug: string): FeedChange => ({type, slug, deleted: true})

/** What the feed answers for each `since` ('' for an initial sync): its changes and token, or a problem's status. */
type Answers = Record<string, {changes: FeedChange[]; token: string} | number>

/** A change feed answering from `answers` as they are at each request, two changes a page. */
function feed(answers: Answers) {
  return scriptedFetch(({url}: SeenRequest) => {
    const params = new URL(url).searchParams
    const answer = answers[params.get('since') ?? '']
    if (answer === undefined) throw new Error(`no answer for ${url}`)
    if (typeof answer === 'number') return problemAnswer(answer, 'Gone', 'Start again without `since`.')
    const start = Number(params.get('cursor') ?? 0)
    const end = Math.min(start + 2, answer.changes.length)
    const next = new URLSearchParams(params)
    next.set('cursor', String(end))
    return jsonAnswer({
      data: {changes: answer.changes.slice(start, end), next_token: answer.token},
      pagination: {
        limit: 2,
        count: end - start,
        total: answer.changes.length,
        has_more: end < answer.changes.length,
        next_cursor: end < answer.changes.length ? String(end) : null,
        next: end < answer.changes.length ? `https://api.example/api/v1/changes.json?${next.toString()}` : null,
      },
    })
  })
}

const contents = (mirror: CatalogMirror) => ({
  episodes: Object.fromEntries(mirror.episodes),
  meetups: Object.fromEntries(mirror.meetups),
  voices: Object.fromEntries(mirror.voices),
  token: mirror.token,
})

const INITIAL = {
  token: 't1',
  changes: [upsert('episode', 'ep-1', 'one'), upsert('episode', 'ep-2', 'two'), upsert('voice', 'noa', 'Noa')],
}

describe('sync', () => {
  it('builds a mirror from an initial sync, then applies only the changes since its token', async () => {
    const {fetch, requests} = feed({
      '': INITIAL,
      t1: {
        token: 't2',
        changes: [deletion('episode', 'ep-1'), upsert('meetup', 'talk', 'Talk'), upsert('voice', 'noa', 'Noa L.')],
      },
    })
    const client = createCatalogClient({baseUrl: BASE, fetch})
    const first = await client.sync()
    expect(first.changes).toEqual(INITIAL.changes)
    expect(first.restarted).toBe(false)
    const later = await client.sync(first.mirror)
    expect(later.mirror).toBe(first.mirror)
    expect(later.changes.map(({slug, deleted}) => [slug, deleted])).toEqual([
      ['ep-1', true],
      ['talk', false],
      ['noa', false],
    ])
    expect(contents(later.mirror)).toEqual({
      episodes: {'ep-2': {slug: 'ep-2', title: 'two'}},
      meetups: {talk: {slug: 'talk', title: 'Talk'}},
      voices: {noa: {slug: 'noa', title: 'Noa L.'}},
      token: 't2',
    })
    expect(requests.map(({url}) => url.slice(BASE.length))).toEqual([
      '/changes.json?limit=500',
      '/changes.json?limit=500&cursor=2',
      '/changes.json?since=t1&limit=500',
      '/changes.json?since=t1&limit=500&cursor=2',
    ])
  })

  it('starts over without `since` when the server answers 410, and returns what differs from the mirror held', async () => {
    const answers: Answers = {'': INITIAL}
    const {fetch, requests} = feed(answers)
    const client = createCatalogClient({baseUrl: BASE, fetch})
    const {mirror} = await client.sync()
    const {episodes} = mirror
    // The server forgot t1 (a restart without SNAPSHOT_DIR); it now serves ep-2 retitled, a new meetup, and noa no more.
    answers.t1 = 410
    answers[''] = {
      token: 't9',
      changes: [
        upsert('episode', 'ep-1', 'one'),
        upsert('episode', 'ep-2', 'two, edited'),
        upsert('meetup', 'talk', 'Talk'),
      ],
    }
    requests.length = 0
    const restart = await client.sync(mirror)
    expect(restart.restarted).toBe(true)
    expect(restart.changes).toEqual([
      upsert('episode', 'ep-2', 'two, edited'),
      upsert('meetup', 'talk', 'Talk'),
      deletion('voice', 'noa'),
    ])
    expect(restart.mirror).toBe(mirror)
    expect(mirror.episodes).toBe(episodes)
    expect(contents(mirror)).toEqual({
      episodes: {'ep-1': {slug: 'ep-1', title: 'one'}, 'ep-2': {slug: 'ep-2', title: 'two, edited'}},
      meetups: {talk: {slug: 'talk', title: 'Talk'}},
      voices: {},
      token: 't9',
    })
    expect(requests.map(({url}) => url.slice(BASE.length))).toEqual([
      '/changes.json?since=t1&limit=500',
      '/changes.json?limit=500',
      '/changes.json?limit=500&cursor=2',
    ])
  })

  it('throws a 410 to an initial sync, which has no token to drop', async () => {
    const {fetch, requests} = feed({'': 410})
    const client = createCatalogClient({baseUrl: BASE, fetch})
    await expect(client.sync()).rejects.toMatchObject({status: 410})
    expect(requests).toHaveLength(1)
  })

  it('leaves the mirror as it was when a page fails part way', async () => {
    const answers: Answers = {'': INITIAL}
    const feedFetch = feed(answers).fetch
    const client = createCatalogClient({
      baseUrl: BASE,
      fetch: (url, init) =>
        url.includes('since=t1') && url.includes('cursor=2')
          ? Promise.resolve(problemAnswer(500, 'Internal Server Error', 'A fault.'))
          : feedFetch(url, init),
    })
    const {mirror} = await client.sync()
    const before = contents(mirror)
    answers.t1 = {
      token: 't2',
      changes: [deletion('episode', 'ep-1'), deletion('episode', 'ep-2'), deletion('voice', 'noa')],
    }
    await expect(client.sync(mirror)).rejects.toBeInstanceOf(CatalogProblem)
    expect(contents(mirror)).toEqual(before)
  })
})
