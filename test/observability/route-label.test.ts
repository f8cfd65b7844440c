import {describe, expect, it} from 'vitest'
import {routeLabel} from '../../server/observability/route-label.ts'

const label = (path: string) => routeLabel(path, (candidate) => candidate === '/llms.txt')

describe('routeLabel', () => {
  it('folds slugs and keeps the collection, sandbox apart', () => {
    expect(label('/api/v1/episodes/ep-1-why-we-started.json')).toBe('/api/v1/episodes/{slug}.json')
    expect(label('/api/v1/sandbox/voices/dana.json')).toBe('/api/v1/sandbox/voices/{slug}.json')
    expect(label('/api/v1/meetups.json')).toBe('/api/v1/meetups.json')
    expect(label('/api/v1/sandbox/all.json')).toBe('/api/v1/sandbox/all.json')
  })

  it('keeps search, the change feed and the event stream apart from unknown paths', () => {
    expect(label('/api/v1/search.json')).toBe('/api/v1/search.json')
    expect(label('/api/v1/sandbox/search.json')).toBe('/api/v1/sandbox/search.json')
    expect(label('/api/v1/changes.json')).toBe('/api/v1/changes.json')
    expect(label('/api/v1/events')).toBe('/api/v1/events')
    expect(label('/api/v1/sandbox/events')).toBe('/api/v1/sandbox/events')
  })

  it('keeps known paths and folds everything else into a few labels', () => {
    expect(label('/llms.txt')).toBe('/llms.txt')
    expect(label('/mcp/health')).toBe('/mcp/health')
    expect(label('/webhooks/sanity')).toBe('/webhooks/sanity')
    expect(label('/api/v1/episodes/a/b.json')).toBe('/api/v1/{unknown}')
    expect(label('/api/v1/podcasts.json')).toBe('/api/v1/{unknown}')
    expect(label('/.env')).toBe('{unknown}')
    expect(label('/api/v1')).toBe('{unknown}')
  })
})
