import {describe, expect, it} from 'vitest'
import {loadConfig} from '../server/config.ts'

describe('loadConfig', () => {
  it('serves the embedded dataset with no configuration at all', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({port: 3000, publicBaseUrl: 'http://localhost:3000', content: {kind: 'embedded', datasetFile: 'data/catalog.ndjson'}})
  })

  it('switches to Sanity when a project id is set, and treats empty variables as unset', () => {
    const config = loadConfig({SANITY_PROJECT_ID: 'abc123', SANITY_TOKEN: '', PUBLIC_BASE_URL: 'https://api.example.org/'})
    expect(config.content).toEqual({kind: 'sanity', projectId: 'abc123', dataset: 'production', apiVersion: '2025-02-19', token: undefined, apiHost: undefined})
    expect(config.publicBaseUrl).toBe('https://api.example.org')
  })

  it('lists every bad variable in one readable error', () => {
    expect(() => loadConfig({PORT: 'eighty', SITE_URL: 'not a url', SANITY_PROJECT_ID: 'Bad Id'})).toThrow(/PORT[\s\S]*SITE_URL[\s\S]*SANITY_PROJECT_ID/)
  })
})
