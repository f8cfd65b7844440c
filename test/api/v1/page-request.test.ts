// A list's `limit` and `cursor` as resolveCatalogPath reads them, on a snapshot of the sample.
import {describe, expect, it} from 'vitest'
import {encodeCursor} from '../../../server/api/v1/cursor.ts'
import {resolveCatalogPath, type Resolution} from '../../../server/http/resolve.ts'
import {loadConfig} from '../../../server/config.ts'
import {createEmbeddedFileSource} from '../../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../../server/catalog-builder.ts'
import {SAMPLE_DATASET} from '../../../support/server.ts'

const BASE = 'http://api.test'
const config = loadConfig({PUBLIC_BASE_URL: BASE})
const snapshot = await catalogSnapshotBuilder({
  source: createEmbeddedFileSource(SAMPLE_DATASET),
  config,
  clock: () => new Date(),
})(undefined, {kind: 'all'})
const episodes = (query: string) => resolveCatalogPath(snapshot, BASE, '/episodes.json', query)

function pagination(resolution: Resolution): {limit: number; count: number; next_cursor: string | null} {
  if (!resolution.found) throw new Error(`refused: ${resolution.detail}`)
  const body: {pagination: {limit: number; count: number; next_cursor: string | null}} = JSON.parse(
    resolution.representation.body.toString('utf8'),
  )
  return body.pagination
}

const refusedLimit = {
  found: false,
  names: true,
  status: 400,
  detail: expect.stringMatching(/^limit must be a whole number from 1 to 500 \(default 100\)/),
}

describe('limit', () => {
  it.each([
    ['1', 1],
    ['2', 2],
    ['500', 500],
    ['01', 1],
    ['0500', 500],
  ])('takes %s as %d', (limit, expected) => {
    expect(pagination(episodes(`limit=${limit}`)).limit).toBe(expected)
  })

  it('is 100 when absent, empty of parameters, or beside parameters it ignores', () => {
    expect(episodes('')).toEqual({found: true, representation: snapshot.representation('episodes.json')})
    expect(episodes('utm_source=x&limit_=3')).toEqual({
      found: true,
      representation: snapshot.representation('episodes.json'),
    })
    expect(pagination(episodes('limit=100')).limit).toBe(100)
  })

  it.each([
    '0',
    '00',
    '501',
    '1000',
    '9999',
    '10000',
    '1e2',
    '-1',
    '+1',
    '1.0',
    '1.5',
    ' 1',
    '1 ',
    '0x10',
    'ten',
    '١',
    '',
  ])('refuses "%s"', (limit) => {
    expect(episodes(`limit=${encodeURIComponent(limit)}`)).toEqual(refusedLimit)
  })

  it('refuses a bare "limit" with no value, and a repeated one even when both agree', () => {
    expect(episodes('limit')).toEqual(refusedLimit)
    expect(episodes('limit=5&limit=5')).toEqual({
      found: false,
      names: true,
      status: 400,
      detail: 'limit is given more than once; send it at most once',
    })
    expect(episodes('limit=5&utm=1&limit=')).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/more than once/),
    })
  })
})

describe('cursor', () => {
  it('walks the list after the cursor, and an empty cursor is the first page', () => {
    const first = pagination(episodes('limit=2'))
    expect(first.next_cursor).not.toBeNull()
    const second = episodes(`limit=2&cursor=${first.next_cursor}`)
    expect(pagination(second)).toMatchObject({limit: 2, count: 2})
    // Asked before the same page without a cursor, so no page cache answers for it.
    expect(pagination(episodes('limit=3&cursor='))).toEqual(pagination(episodes('limit=3')))
  })

  it('refuses a repeated cursor, and one this API did not issue', () => {
    const cursor = encodeCursor(['2026-01-01', 'x'])
    expect(episodes(`cursor=${cursor}&cursor=${cursor}`)).toEqual({
      found: false,
      names: true,
      status: 400,
      detail: 'cursor is given more than once; send it at most once',
    })
    expect(episodes(`cursor=${cursor}=`)).toMatchObject({
      found: false,
      names: true,
      status: 400,
      detail: expect.stringMatching(/cursor is not one this API issued/),
    })
  })
})

describe("the change feed's parameters", () => {
  const changes = (query: string) => resolveCatalogPath(snapshot, BASE, '/changes.json', query)

  it('refuses since, limit or cursor given twice, even when both agree, as the lists do', () => {
    const first = pagination(changes('limit=1'))
    for (const query of [
      `since=${snapshot.version}&since=${snapshot.version}`,
      'limit=1&limit=1',
      `cursor=${first.next_cursor}&cursor=${first.next_cursor}`,
    ])
      expect(changes(query)).toMatchObject({status: 400, detail: expect.stringMatching(/ is given more than once/)})
    expect(pagination(changes(`since=${snapshot.version}`)).count).toBe(0)
  })
})
