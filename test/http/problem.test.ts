// Problem responses (RFC 9457) and the deprecated version's headers, written to a response that
// records what it is given: no server, no socket.
import {describe, expect, it} from 'vitest'
import {lifecycleHeaders, sendRetired} from '../../server/http/lifecycle.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'
import {
  buildProblem,
  isProblemStatus,
  isReadMethod,
  problemAnchor,
  problemTitle,
  sendMethodNotAllowed,
  sendProblem,
  unknownPathDetail,
} from '../../server/http/problem.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'

describe('problem documents', () => {
  it('names each status by its reason phrase, with a stable anchor in the errors section', () => {
    expect(buildProblem(BASE, 404, 'No such thing.', '/x')).toEqual({
      type: 'http://api.test/docs#errors-not-found',
      title: 'Not Found',
      status: 404,
      detail: 'No such thing.',
      instance: '/x',
    })
    expect(problemAnchor(429)).toBe('errors-too-many-requests')
    expect(problemAnchor(414)).toBe('errors-uri-too-long')
    expect(problemAnchor(417)).toBe('errors-expectation-failed')
    expect(problemTitle(599)).toBe('Error')
    expect(problemAnchor(599)).toBe('errors-error')
  })

  it('knows exactly the statuses it sends', () => {
    for (const status of [400, 404, 405, 408, 409, 410, 413, 414, 415, 417, 421, 429, 431, 500, 503])
      expect(isProblemStatus(status), String(status)).toBe(true)
    for (const status of [200, 304, 401, 403, 502, '404', undefined])
      expect(isProblemStatus(status), String(status)).toBe(false)
  })

  it('reads only GET and HEAD as read methods', () => {
    expect(['GET', 'HEAD', 'POST', 'get', undefined].map(isReadMethod)).toEqual([true, true, false, false, false])
  })

  it('points an unknown path at the service index', () => {
    expect(unknownPathDetail(BASE)).toBe('No such path. The API starts at http://api.test/api/v1/index.json.')
  })
})

describe('sendProblem', () => {
  it('writes the problem as uncacheable application/problem+json, given headers first and extra headers last', () => {
    const {response, written} = fakeResponse()
    const problem = buildProblem(BASE, 400, 'Bad — אות', '/p')
    sendProblem(fakeRequest('GET', '/p'), response, problem, {Allow: 'GET'}, ['X-Request-Id', 'r1'])
    const body = Buffer.from(JSON.stringify(problem))
    expect(written.status).toBe(400)
    expect(written.headerList).toEqual([
      'Allow',
      'GET',
      'Content-Type',
      MEDIA_TYPES.problem,
      'Content-Length',
      String(body.length),
      'Cache-Control',
      'no-store',
      'X-Request-Id',
      'r1',
    ])
    expect(MEDIA_TYPES.problem).toBe('application/problem+json; charset=utf-8')
    expect(body.length).toBeGreaterThan(JSON.stringify(problem).length) // counted in bytes, not characters
    expect(written.body).toEqual(body)
  })

  it('sends the headers of GET and no body to HEAD', () => {
    const {response, written} = fakeResponse()
    sendProblem(fakeRequest('HEAD', '/p'), response, buildProblem(BASE, 404, 'gone', '/p'))
    expect(written.status).toBe(404)
    expect(Number(written.headers['content-length'])).toBeGreaterThan(0)
    expect(written.ended).toBe(true)
    expect(written.body).toBeUndefined()
  })

  it('answers 405 with the Allow header', () => {
    const {response, written} = fakeResponse()
    sendMethodNotAllowed(fakeRequest('POST', '/a'), response, {
      publicBaseUrl: BASE,
      allow: 'GET, HEAD',
      instance: '/a',
      detail: 'read-only',
    })
    expect(written.status).toBe(405)
    expect(written.headers.allow).toBe('GET, HEAD')
    expect(JSON.parse(String(written.body))).toEqual(buildProblem(BASE, 405, 'read-only', '/a'))
  })
})

describe('a deprecated version', () => {
  const lifecycle = {
    deprecation: new Date('2027-01-01T00:00:00.999Z'),
    sunset: new Date('2027-07-01T00:00:00Z'),
    successorUrl: 'http://api.test/api/v2/index.json',
  }

  it('announces its deprecation in unix seconds, its sunset as an HTTP-date and its successor', () => {
    expect(lifecycleHeaders(lifecycle)).toEqual([
      ['Deprecation', '@1798761600'],
      ['Sunset', 'Thu, 01 Jul 2027 00:00:00 GMT'],
      ['Link', '<http://api.test/api/v2/index.json>; rel="successor-version"'],
    ])
  })

  it('answers 410 after the sunset, naming the successor in the body and the Link header', () => {
    const {response, written} = fakeResponse()
    sendRetired(fakeRequest('GET', '/api/v1/episodes.json'), response, lifecycle, BASE, ['X-Request-Id', 'r2'])
    expect(written.status).toBe(410)
    expect(written.headers.link).toBe('<http://api.test/api/v2/index.json>; rel="successor-version"')
    expect(written.headers['x-request-id']).toBe('r2')
    expect(JSON.parse(String(written.body))).toEqual(
      buildProblem(
        BASE,
        410,
        'This API version was retired on Thu, 01 Jul 2027 00:00:00 GMT. Its successor is http://api.test/api/v2/index.json.',
        '/api/v1/episodes.json',
      ),
    )
  })

  it('uses / as the instance of a request without a URL', () => {
    const {response, written} = fakeResponse()
    sendRetired({method: 'GET'}, response, lifecycle, BASE, [])
    expect(JSON.parse(String(written.body)).instance).toBe('/')
  })
})
