// /healthz and /readyz as a load balancer reads them, from handlers called with recording stand-ins.
import type {Request, Response} from 'express'
import {describe, expect, it} from 'vitest'
import {HEALTH_PATHS, livenessHandler, readinessHandler, type Readiness} from '../../server/http/health.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

interface ExpressLike {
  set(name: string, value: string): ExpressLike
  json(body: unknown): ExpressLike
}

/** Calls a handler with a response that records Express's set/json as well as writeHead/end. */
function call(handler: typeof livenessHandler, method = 'GET', url = '/readyz') {
  const {response, written} = fakeResponse()
  const json: {body: unknown} = {body: undefined}
  const express: ExpressLike = Object.assign(response, {
    set(name: string, value: string) {
      response.setHeader(name, value)
      return express
    },
    json(body: unknown) {
      json.body = body
      written.status ??= 200
      return express
    },
  })
  // The handlers read only these members of Express's request and response.
  const request = Object.assign(fakeRequest(method, url), {originalUrl: url}) as unknown as Request
  handler(request, express as unknown as Response, () => undefined)
  return {written, json: json.body}
}

describe('health endpoints', () => {
  it('are the two paths a load balancer asks', () => {
    expect(HEALTH_PATHS).toEqual(['/healthz', '/readyz'])
  })

  it('/healthz answers ok, never cached', () => {
    const {written, json} = call(livenessHandler, 'GET', '/healthz')
    expect(json).toEqual({status: 'ok'})
    expect(written.headers['cache-control']).toBe('no-store')
  })

  it('/readyz answers ready, never cached, while ready() says so', () => {
    const {written, json} = call(readinessHandler(() => ({ready: true}), 'https://api.test'))
    expect(json).toEqual({status: 'ready'})
    expect(written.status).toBe(200)
    expect(written.headers['cache-control']).toBe('no-store')
  })

  it('/readyz answers a 503 problem with the reason when not ready, asking ready() each time', () => {
    let readiness: Readiness = {ready: false, detail: 'No snapshot has been built yet.'}
    const handler = readinessHandler(() => readiness, 'https://api.test')
    const {written, json} = call(handler, 'GET', '/readyz?probe=1')
    expect(json).toBeUndefined()
    expect(written.status).toBe(503)
    expect(written.headers['content-type']).toBe('application/problem+json; charset=utf-8')
    expect(written.headers['cache-control']).toBe('no-store')
    expect(JSON.parse(written.body?.toString('utf8') ?? '')).toEqual({
      type: 'https://api.test/docs#errors-service-unavailable',
      title: 'Service Unavailable',
      status: 503,
      detail: 'No snapshot has been built yet.',
      instance: '/readyz?probe=1',
    })
    readiness = {ready: true}
    expect(call(handler).json).toEqual({status: 'ready'})
  })
})
