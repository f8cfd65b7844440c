// Integration: starts the real app on a loopback port over the shipped sample dataset
// (groq-js evaluating data/catalog.ndjson) and talks to it with fetch.
import {readFile} from 'node:fs/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {
  bulkSchema,
  episodeSchema,
  itemEnvelope,
  listEnvelope,
  meetupSchema,
  serviceIndexSchema,
  voiceSchema,
} from '../../catalog/v1/contract.ts'
import {readContract, readProblem} from '../helpers/contract.ts'
import {sampleCounts} from '../helpers/sample.ts'
import {SAMPLE_DATASET, startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer
const get = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init)

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  expect(server.loggedErrors).toEqual([])
  await server.close()
})

const lists = [
  ['episodes', episodeSchema],
  ['meetups', meetupSchema],
  ['voices', voiceSchema],
] as const

describe('endpoints', () => {
  it('serves the service index', async () => {
    const {data} = await readContract(await get('/api/v1/index.json'), itemEnvelope(serviceIndexSchema))
    expect(data.authentication).toBe('none')
    expect(data.version).toBe('v1')
    expect(data.endpoints.getEpisode).toBe('http://api.test/api/v1/episodes/{slug}.json')
    expect(Object.keys(data.endpoints).sort()).toEqual(
      [
        'getChanges',
        'getEpisode',
        'getEverything',
        'getMeetup',
        'getServiceIndex',
        'getVoice',
        'listEpisodes',
        'listMeetups',
        'listVoices',
        'searchCatalog',
        'streamEvents',
      ].sort(),
    )
  })

  it.each(lists)('lists every %s on one page and serves each one by slug', async (name, schema) => {
    const list = await readContract(await get(`/api/v1/${name}.json`), listEnvelope(schema))
    expect(list.pagination).toEqual({
      limit: 100,
      count: list.data.length,
      total: list.data.length,
      has_more: false,
      next_cursor: null,
      next: null,
    })
    expect(list.data.length).toBeGreaterThanOrEqual(8)
    for (const item of list.data) {
      expect(item.api_url).toBe(`http://api.test/api/v1/${name}/${item.slug}.json`)
      const single = await readContract(await get(`/api/v1/${name}/${item.slug}.json`), itemEnvelope(schema))
      expect(single.data).toEqual(item)
    }
  })

  it('serves the bulk document with the three lists and their counts', async () => {
    const bulk = await readContract(await get('/api/v1/all.json'), bulkSchema)
    for (const [name, schema] of lists) {
      const list = await readContract(await get(`/api/v1/${name}.json`), listEnvelope(schema))
      expect(bulk.data[name]).toEqual(list.data)
      expect(bulk.counts[name]).toBe(list.data.length)
    }
    expect(bulk.counts.episodes).toBeGreaterThanOrEqual(30)
    expect(bulk.counts.voices).toBeGreaterThanOrEqual(25)
  })

  it('orders episodes and meetups newest first, ties by slug', async () => {
    for (const name of ['episodes', 'meetups'] as const) {
      const {data} = await readContract(
        await get(`/api/v1/${name}.json`),
        listEnvelope(name === 'episodes' ? episodeSchema : meetupSchema),
      )
      const keys = data.map((item) => `${item.published_date} ${item.slug}`)
      const expected = [...data]
        .sort((a, b) => b.published_date.localeCompare(a.published_date) || (a.slug < b.slug ? -1 : 1))
        .map((item) => `${item.published_date} ${item.slug}`)
      expect(keys).toEqual(expected)
    }
  })

  it('orders voices with a Hebrew collator, which code-point order gets wrong', async () => {
    const {data} = await readContract(await get('/api/v1/voices.json'), listEnvelope(voiceSchema))
    const names = data.map((voice) => voice.name)
    expect(names).toEqual([...names].sort(new Intl.Collator('he').compare))
    expect(names).not.toEqual([...names].sort())
  })

  it('resolves every guest and speaker through getVoice', async () => {
    const bulk = await readContract(await get('/api/v1/all.json'), bulkSchema)
    const people = [
      ...bulk.data.episodes.flatMap((episode) => episode.guests),
      ...bulk.data.meetups.flatMap((meetup) => meetup.speakers),
    ]
    expect(people.length).toBeGreaterThan(30)
    const voiceSlugs = new Set(bulk.data.voices.map((voice) => voice.slug))
    for (const person of people) {
      expect(voiceSlugs).toContain(person.slug)
      expect(person.url).toBe(`https://codetalks.example/voices/${person.slug}`)
    }
    const guest = people[0]
    const voice =
      guest &&
      (await readContract(
        await fetch(guest.api_url.replace('http://api.test', server.baseUrl)),
        itemEnvelope(voiceSchema),
      ))
    expect(voice?.data.slug).toBe(guest?.slug)
  })

  it('maps episode fields the way the contract describes', async () => {
    const {data: numbered} = await readContract(
      await get('/api/v1/episodes/ep-22-cache-invalidation.json'),
      itemEnvelope(episodeSchema),
    )
    expect(numbered.episode_number).toBe(22)
    expect(numbered.guests.map((guest) => guest.slug)).toEqual(['ofir-zaken', 'nir-weiss'])
    expect(numbered.faq.length).toBe(2)
    expect(numbered.url).toBe('https://codetalks.example/episodes/ep-22-cache-invalidation')
    // The feed this server serves, at its public origin (FEED_URL unset).
    expect(numbered.feed_url).toBe('http://api.test/feed.xml')
    expect(numbered.image_url).toMatch(
      /^https:\/\/cdn\.sanity\.io\/images\/embedded\/production\/[0-9a-f]{40}-3000x3000\.jpg\?/,
    )
    expect(new URL(numbered.image_url ?? '').searchParams.get('fm')).toBe('webp')
    expect(new URL(numbered.image_url ?? '').searchParams.get('w')).toBe('800')
    if (numbered.video_id) expect(numbered.video_url).toBe(`https://www.youtube.com/watch?v=${numbered.video_id}`)

    const {data: special} = await readContract(
      await get('/api/v1/episodes/special-live-devconf-2025.json'),
      itemEnvelope(episodeSchema),
    )
    expect(special.episode_number).toBeNull()
    const {data: unpublishedAudio} = await readContract(
      await get('/api/v1/episodes/ep-31-webhooks-done-right.json'),
      itemEnvelope(episodeSchema),
    )
    expect(unpublishedAudio.audio_url).toBeNull()
    const {data: plain} = await readContract(
      await get('/api/v1/episodes/ep-1-why-we-started.json'),
      itemEnvelope(episodeSchema),
    )
    expect(plain).toMatchObject({takeaways: [], faq: [], guests: []})
  })

  it('keeps Hebrew text intact as UTF-8', async () => {
    const response = await get('/api/v1/voices/noa-levi.json', {headers: {'Accept-Encoding': 'identity'}})
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(bytes.toString('utf8')).toContain('"name":"נועה לוי"')
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length)
  })
})

describe('the sample dataset', () => {
  it('passes the contract in full: nothing rejected, no reference dropped', () => {
    expect(server.store.current().catalog.problems).toEqual([])
    expect(server.store.current().counts).toEqual(sampleCounts)
  })
})

describe('drafts', () => {
  it('never serves a draft, neither a draft-only document nor the unpublished edit of a published one', async () => {
    const dataset = await readFile(SAMPLE_DATASET, 'utf8')
    expect(dataset).toContain('"_id":"drafts.')
    const everything = await (await get('/api/v1/all.json')).text()
    expect(everything).not.toContain('טיוטה')
    expect(everything).not.toContain('ep-32-unpublished-draft')
    await readProblem(await get('/api/v1/episodes/ep-32-unpublished-draft.json'), 404)
    await readProblem(await get('/api/v1/meetups/unpublished-meetup.json'), 404)
    const {data} = await readContract(
      await get('/api/v1/episodes/ep-2-react-server-components.json'),
      itemEnvelope(episodeSchema),
    )
    expect(data.title).toBe('פרק 2: קומפוננטות שרת בריאקט')
  })
})

describe('sandbox', () => {
  it.each([
    '/index.json',
    '/episodes.json',
    '/episodes/ep-7-hebrew-nlp.json',
    '/meetups.json',
    '/voices/jenny-katz.json',
    '/all.json',
    '/voices.json?limit=3',
  ])('serves the same bytes and validators at /api/v1/sandbox%s', async (path) => {
    const [live, sandbox] = await Promise.all([get(`/api/v1${path}`), get(`/api/v1/sandbox${path}`)])
    expect(sandbox.status).toBe(200)
    expect(Buffer.from(await sandbox.arrayBuffer())).toEqual(Buffer.from(await live.arrayBuffer()))
    expect(sandbox.headers.get('etag')).toBe(live.headers.get('etag'))
  })

  it('answers unknown sandbox slugs like the live API', async () => {
    await readProblem(await get('/api/v1/sandbox/episodes/missing.json'), 404)
  })
})

describe('HEAD and conditional requests', () => {
  it('answers HEAD with the GET headers and no body', async () => {
    const [full, head] = await Promise.all([get('/api/v1/all.json'), get('/api/v1/all.json', {method: 'HEAD'})])
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
    for (const header of ['etag', 'last-modified', 'content-type', 'content-length', 'cache-control']) {
      expect(head.headers.get(header)).toBe(full.headers.get(header))
    }
  })

  it('serves strong ETags, Last-Modified and Cache-Control', async () => {
    const response = await get('/api/v1/episodes.json')
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}(-br|-gzip)?"$/)
    expect(new Date(response.headers.get('last-modified') ?? '').getTime()).toBeGreaterThan(Date.parse('2025-01-01'))
    expect(response.headers.get('cache-control')).toContain('public')
  })

  it('answers 304 without a body for a matching If-None-Match, in every form RFC 9110 allows', async () => {
    const response = await get('/api/v1/episodes/ep-3-schema-migrations.json')
    const etag = response.headers.get('etag') ?? ''
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const conditional = await get('/api/v1/episodes/ep-3-schema-migrations.json', {
        headers: {'If-None-Match': ifNoneMatch},
      })
      expect(conditional.status, ifNoneMatch).toBe(304)
      expect(await conditional.text()).toBe('')
      expect(conditional.headers.get('etag')).toBe(etag)
      expect(conditional.headers.get('cache-control')).toBe(response.headers.get('cache-control'))
    }
    const changed = await get('/api/v1/episodes/ep-3-schema-migrations.json', {headers: {'If-None-Match': '"stale"'}})
    expect(changed.status).toBe(200)
  })

  it('answers 304 for If-Modified-Since at or after Last-Modified, and ignores it when If-None-Match is sent', async () => {
    const response = await get('/api/v1/voices.json')
    const lastModified = response.headers.get('last-modified') ?? ''
    expect((await get('/api/v1/voices.json', {headers: {'If-Modified-Since': lastModified}})).status).toBe(304)
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString()
    expect((await get('/api/v1/voices.json', {headers: {'If-Modified-Since': earlier}})).status).toBe(200)
    expect(
      (await get('/api/v1/voices.json', {headers: {'If-Modified-Since': lastModified, 'If-None-Match': '"stale"'}}))
        .status,
    ).toBe(200)
    expect((await get('/api/v1/voices.json', {headers: {'If-Modified-Since': 'not a date'}})).status).toBe(200)
  })
})

describe('errors', () => {
  it.each([
    '/api/v1/episodes/no-such-episode.json',
    '/api/v1/meetups/no-such-talk.json',
    '/api/v1/voices/no-such-voice.json',
    '/api/v1/episodes/Not_A_Slug.json',
    `/api/v1/episodes/${'a'.repeat(129)}.json`,
    '/api/v1/podcasts.json',
    '/api/v1/',
    '/api/v1',
    '/api/v1/EPISODES.json',
    '/api/v1/episodes.json/extra',
    '/api/v2/episodes.json',
    '/favicon.ico',
  ])('answers %s with a 404 problem', async (path) => {
    const problem = await readProblem(await get(path), 404)
    expect(problem).toMatchObject({title: 'Not Found', type: 'http://api.test/docs#errors-not-found'})
    expect(problem.detail).toMatch(/index\.json|slug/)
  })

  it('explains what a slug looks like when the path has no valid slug', async () => {
    const problem = await readProblem(await get('/api/v1/voices/Noa%20Levi.json'), 404)
    expect(problem.detail).toContain('^[a-z0-9-]+$')
  })

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
    'answers %s on an existing path with 405 and Allow: GET, HEAD',
    async (method) => {
      for (const path of [
        '/api/v1/episodes.json',
        '/api/v1/sandbox/all.json',
        '/api/v1/voices/noa-levi.json',
        '/api/v1/index.json?limit=0',
        '/status',
      ]) {
        const response = await get(path, {method, body: method === 'POST' ? '{}' : null})
        const problem = await readProblem(response, 405)
        expect(response.headers.get('allow')).toBe('GET, HEAD')
        expect(problem.detail).toContain('read-only')
      }
    },
  )

  it.each([
    ['/api/v1/episodes.json?limit=0', 'limit'],
    ['/api/v1/episodes.json?limit=501', 'limit'],
    ['/api/v1/episodes.json?limit=ten', 'limit'],
    ['/api/v1/episodes.json?limit=1.5', 'limit'],
    ['/api/v1/episodes.json?limit=', 'limit'],
    ['/api/v1/episodes.json?limit=5&limit=6', 'more than once'],
    ['/api/v1/episodes.json?cursor=abc', 'cursor'],
    ['/api/v1/voices.json?cursor=not*base64', 'cursor'],
    ['/api/v1/meetups.json?cursor=WzIsImEiLCJiIl0', 'cursor'],
    ['/api/v1/episodes/%E0%A4%A.json', 'percent-encoding'],
    ['/api/v1/episodes.json?cursor=%zz', 'percent-encoding'],
  ])('answers %s with a 400 problem that names the fault', async (path, fault) => {
    const problem = await readProblem(await get(path), 400)
    expect(problem.detail).toContain(fault)
    expect(problem.type).toBe('http://api.test/docs#errors-bad-request')
  })

  it('serves an item whatever query it carries, on the fast path and on the Express path alike', async () => {
    const plain = await get('/api/v1/episodes/ep-3-schema-migrations.json')
    // Without percent-encoding the fast path answers; with it, Express does (it checks the encoding first).
    for (const query of ['?utm_source=newsletter', '?utm_source=%D7%A9', '?']) {
      const response = await get(`/api/v1/episodes/ep-3-schema-migrations.json${query}`)
      expect(response.status, query).toBe(200)
      expect(response.headers.get('etag'), query).toBe(plain.headers.get('etag'))
    }
  })

  it('answers any method on an unknown path with 404', async () => {
    for (const method of ['POST', 'DELETE']) {
      await readProblem(await get('/api/v1/nowhere', {method}), 404)
      await readProblem(await get('/api/v1/episodes/no-such-episode.json', {method}), 404)
      await readProblem(await get('/webhooks/sanity', {method}), 404)
    }
  })

  it('ignores an Authorization header and never challenges', async () => {
    const anonymous = await get('/api/v1/all.json')
    for (const authorization of ['Bearer nonsense', 'Basic dXNlcjpwYXNz', 'garbage']) {
      const withHeader = await get('/api/v1/all.json', {headers: {Authorization: authorization}})
      expect(withHeader.status).toBe(200)
      expect(withHeader.headers.get('www-authenticate')).toBeNull()
      expect(withHeader.headers.get('etag')).toBe(anonymous.headers.get('etag'))
    }
  })

  it('never sends HTML, an X-Powered-By header, a 401 or a 403', async () => {
    for (const path of ['/', '/api/v1/episodes/x.json', '/api/v1/all.json', '/api/v1/%', '/admin']) {
      // Not following redirects: `/` leads to the portal, which is the one HTML page.
      const response = await get(path, {headers: {Accept: 'text/html'}, redirect: 'manual'})
      expect(response.headers.get('content-type') ?? '').not.toContain('html')
      expect(response.headers.get('x-powered-by')).toBeNull()
      expect([401, 403]).not.toContain(response.status)
    }
  })
})
