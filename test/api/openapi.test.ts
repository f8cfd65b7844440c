import {createConfig, lintFromString} from '@redocly/openapi-core'
import {describe, expect, it} from 'vitest'
import {expectMatchesOpenApi, openApiDocument} from '../helpers/openapi.ts'

const operations = Object.values(openApiDocument.paths ?? {}).flatMap((item) => (item?.get ? [item.get] : []))

describe('the OpenAPI document', () => {
  it('passes the Redocly linter with its recommended rules, with no warnings', async () => {
    const config = await createConfig({extends: ['recommended-strict']})
    const problems = await lintFromString({
      source: JSON.stringify(openApiDocument),
      absoluteRef: 'openapi.json',
      config,
    })
    expect(
      problems.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
    ).toEqual([])
  })

  it('is OpenAPI 3.1 with every operation of the spec, unauthenticated', () => {
    expect(openApiDocument.openapi).toBe('3.1.0')
    expect(openApiDocument.security).toEqual([])
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(
      [
        'getChanges',
        'getEpisode',
        'getEpisodeChapters',
        'getEpisodeTranscriptJson',
        'getEpisodeTranscriptSrt',
        'getEpisodeTranscriptVtt',
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
    for (const operation of operations) {
      expect(operation.security).toEqual([])
      // The event stream is not a document: no validators, no 404, no 410.
      if (operation.operationId === 'streamEvents') {
        expect(Object.keys(operation.responses ?? {}).sort()).toEqual(['200', '405', '429', '503'])
        continue
      }
      // A transcript is long and players seek: its three formats take one byte range.
      const ranges = operation.operationId?.startsWith('getEpisodeTranscript') ? ['206', '416'] : []
      // A search may come before a large catalog's index is built: a 503 with Retry-After.
      const unavailable = operation.operationId === 'searchCatalog' ? ['503'] : []
      expect(Object.keys(operation.responses ?? {}).sort()).toEqual([
        '200',
        ...ranges.slice(0, 1),
        '304',
        '400',
        '404',
        '405',
        '410',
        '412',
        ...ranges.slice(1),
        '429',
        '500',
        ...unavailable,
      ])
    }
    expect(openApiDocument.servers?.map((server) => server.url)).toEqual([
      'http://api.test/api/v1',
      'http://api.test/api/v1/sandbox',
    ])
  })

  it('documents the slug pattern, the page parameters and the response headers', () => {
    const getEpisode = openApiDocument.paths?.['/episodes/{slug}.json']?.get
    const listEpisodes = openApiDocument.paths?.['/episodes.json']?.get
    expect(JSON.stringify(getEpisode?.parameters)).toContain('^[a-z0-9-]+$')
    expect(JSON.stringify(getEpisode?.parameters)).toContain('"maxLength":128')
    expect(JSON.stringify(listEpisodes?.parameters)).toMatch(/"name":"limit".*"maximum":500/)
    expect(JSON.stringify(listEpisodes?.parameters)).toContain('"name":"cursor"')
    const headers = JSON.stringify(listEpisodes?.responses?.['200'])
    for (const header of ['etag', 'last-modified', 'ratelimit-policy']) expect(headers).toContain(`"${header}"`)
    expect(JSON.stringify(listEpisodes?.responses?.['429'])).toContain('retry-after')
  })

  it('documents the search parameters: q required, of at most 200 characters, and limit up to 50', () => {
    const search = openApiDocument.paths?.['/search.json']?.get
    expect(JSON.stringify(search?.parameters)).toMatch(
      /"name":"q","schema":\{[^}]*"maxLength":200[^}]*\},"required":true/,
    )
    expect(JSON.stringify(search?.parameters)).toMatch(/"name":"limit".*"maximum":50/)
    expect(JSON.stringify(search?.responses?.['400'])).toContain('`q`')
  })

  it('rejects a body that breaks it, so the validation in the HTTP tests can fail', () => {
    const response = new Response(null, {status: 200, headers: {'content-type': 'application/json'}})
    Object.defineProperty(response, 'url', {value: 'http://api.test/api/v1/episodes/ep-1.json'})
    expect(() => expectMatchesOpenApi(response, {data: {slug: 'ep-1'}})).toThrow(/breaks the OpenAPI document/)
    expect(() => expectMatchesOpenApi(response, {data: []})).toThrow(/breaks the OpenAPI document/)
  })
})
