// Promises of the OpenAPI document to clients: the envelopes of lists and items, a 405 names the methods it allows in its
// `Allow` header, and a map of values (the service index's endpoints) keeps the schema of its values
// while the closed objects are published open.
import {describe, expect, it} from 'vitest'
import {buildOpenApiDocument} from '../../server/api/openapi.ts'

// Built inside each test, not at import, so a mutation run counts the build as the test's.
const build = () => buildOpenApiDocument({publicBaseUrl: 'https://api.example', apiName: 'Example Catalog'})

describe('the OpenAPI document', () => {
  it('promises "GET, HEAD" in the Allow header of every 405', () => {
    const document = build()
    const responses = Object.values(document.paths ?? {}).map((path) => path.get?.responses?.['405'])
    expect(responses.length).toBeGreaterThan(0)
    for (const response of responses)
      expect(response).toMatchObject({headers: {allow: {required: true, schema: {type: 'string', const: 'GET, HEAD'}}}})
  })

  it("keeps the schema of a map's values: the service index's endpoints are strings", () => {
    const document = build()
    expect(document.components?.schemas?.ServiceIndex).toMatchObject({
      properties: {endpoints: {type: 'object', additionalProperties: {type: 'string'}}},
    })
  })

  it('wraps a list in data and pagination, and an item in data', () => {
    const document = build()
    const schemaOf = (path: string) => document.paths?.[path]?.get?.responses?.['200']
    expect(schemaOf('/episodes.json')).toMatchObject({
      content: {
        'application/json': {
          schema: {
            properties: {
              data: {type: 'array', items: {$ref: '#/components/schemas/Episode'}},
              pagination: {$ref: '#/components/schemas/Pagination'},
            },
            required: ['data', 'pagination'],
          },
        },
      },
    })
    expect(schemaOf('/episodes/{slug}.json')).toMatchObject({
      content: {
        'application/json': {
          schema: {properties: {data: {$ref: '#/components/schemas/Episode'}}, required: ['data']},
        },
      },
    })
  })
})
