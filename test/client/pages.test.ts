// The typed client's lists (client/src/pages.ts) through its fetch seam, no sockets: an async
// iterator that follows each page's `pagination.next` on the origin and base path it was given.
import {describe, expect, it} from 'vitest'
import {createCatalogClient} from '../../client/src/index.ts'
import {jsonAnswer, scriptedFetch} from '../helpers/scripted-fetch.ts'

// The sandbox on an internal address, while `next` names the public origin and /api/v1, as the server writes it.
const BASE = 'http://10.0.0.7:3000/api/v1/sandbox'
const PUBLIC = 'https://api.example/api/v1'

const page = (slugs: string[], cursor: string | null) =>
  jsonAnswer({
    data: slugs.map((slug) => ({slug})),
    pagination: {
      limit: 2,
      count: slugs.length,
      total: 5,
      has_more: cursor !== null,
      next_cursor: cursor,
      next: cursor === null ? null : `${PUBLIC}/meetups.json?limit=2&cursor=${cursor}`,
    },
  })
const server = () =>
  scriptedFetch(({url}) => {
    switch (new URL(url).searchParams.get('cursor')) {
      case 'after-b':
        return page(['c', 'd'], 'after-d')
      case 'after-d':
        return page(['e'], null)
      default:
        return page(['a', 'b'], 'after-b')
    }
  })

describe('a list', () => {
  it('yields every item, page after page, following next on the endpoint it was given', async () => {
    const {fetch, requests} = server()
    const client = createCatalogClient({baseUrl: BASE, fetch})
    const slugs: string[] = []
    for await (const meetup of client.listMeetups({limit: 2})) slugs.push(meetup.slug)
    expect(slugs).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(requests.map(({url}) => url)).toEqual([
      `${BASE}/meetups.json?limit=2`,
      `${BASE}/meetups.json?limit=2&cursor=after-b`,
      `${BASE}/meetups.json?limit=2&cursor=after-d`,
    ])
  })

  it('asks for no page past the one a loop stopped in', async () => {
    const {fetch, requests} = server()
    const client = createCatalogClient({baseUrl: BASE, fetch})
    for await (const meetup of client.listMeetups({limit: 2})) if (meetup.slug === 'b') break
    expect(requests).toHaveLength(1)
  })
})
