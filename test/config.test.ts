import {describe, expect, it} from 'vitest'
import {loadConfig} from '../server/config.ts'

describe('loadConfig', () => {
  it('serves the embedded dataset with no configuration at all', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      content: {kind: 'embedded', datasetFile: 'data/catalog.ndjson'},
    })
  })

  it('switches to Sanity when a project id is set, and treats empty variables as unset', () => {
    const config = loadConfig({
      SANITY_PROJECT_ID: 'abc123',
      SANITY_TOKEN: '',
      PUBLIC_BASE_URL: 'https://api.example.org/',
    })
    expect(config.content).toEqual({
      kind: 'sanity',
      projectId: 'abc123',
      dataset: 'production',
      apiVersion: '2025-02-19',
      token: undefined,
      apiHost: undefined,
    })
    expect(config.publicBaseUrl).toBe('https://api.example.org')
  })

  it('lists every bad variable in one readable error', () => {
    expect(() => loadConfig({PORT: 'eighty', SITE_URL: 'not a url', SANITY_PROJECT_ID: 'Bad Id'})).toThrow(
      /PORT[\s\S]*SITE_URL[\s\S]*SANITY_PROJECT_ID/,
    )
  })

  it('names the missing companions of CDN_PURGE in the same message as the bad variables', () => {
    const message = messageOf(() =>
      loadConfig({SANITY_WEBHOOK_SECRET: 'short', TRUST_PROXY: 'true', CDN_PURGE: 'varnish'}),
    )
    const named = message.split('; ').map((problem) => /^(?:Invalid configuration: )?([A-Z_]+):/.exec(problem)?.[1])
    expect(named.sort()).toEqual(['CDN_PURGE_TOKEN', 'CDN_PURGE_URLS', 'SANITY_WEBHOOK_SECRET', 'TRUST_PROXY'])
    expect(message).toContain('CDN_PURGE_URLS: is required when CDN_PURGE=varnish')
    expect(message).not.toContain('short')
  })
})

describe('operations settings', () => {
  it('refuses a sunset less than 6 months after the deprecation', () => {
    expect(() =>
      loadConfig({
        DEPRECATION_DATE: '2027-01-01',
        SUNSET_DATE: '2027-06-30',
        SUCCESSOR_URL: 'https://api.example/api/v2/',
      }),
    ).toThrow(/SUNSET_DATE: must be at least 6 months after DEPRECATION_DATE/)
    expect(
      loadConfig({
        DEPRECATION_DATE: '2027-01-01',
        SUNSET_DATE: '2027-07-01',
        SUCCESSOR_URL: 'https://api.example/api/v2/',
      }).lifecycle,
    ).toEqual({
      deprecation: new Date('2027-01-01T00:00:00Z'),
      sunset: new Date('2027-07-01T00:00:00Z'),
      successorUrl: 'https://api.example/api/v2',
    })
  })

  it('wants the three lifecycle settings together', () => {
    expect(() => loadConfig({DEPRECATION_DATE: '2027-01-01'})).toThrow(/set together/)
    expect(loadConfig({}).lifecycle).toBeUndefined()
  })

  it('refuses to trust every proxy, which would let clients choose their rate-limit key', () => {
    expect(() => loadConfig({TRUST_PROXY: 'true'})).toThrow(/TRUST_PROXY/)
    expect(loadConfig({TRUST_PROXY: 'loopback, 10.0.0.0/8'}).trustProxy).toEqual(['loopback', '10.0.0.0/8'])
    expect(loadConfig({TRUST_PROXY: '1'}).trustProxy).toBe(1)
  })
})

function messageOf(action: () => unknown): string {
  try {
    action()
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  throw new Error('expected it to throw')
}
