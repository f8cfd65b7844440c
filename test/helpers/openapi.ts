import {Ajv2020} from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import {expect} from 'vitest'
import {buildOpenApiDocument} from '../../server/api/openapi.ts'

// Validates responses the tests receive against the OpenAPI document the server publishes (built
// with the test servers' settings), so the document cannot describe an API we do not serve.

export const openApiDocument = buildOpenApiDocument({
  publicBaseUrl: 'http://api.test',
  apiName: 'Code Talks Catalog API',
})
const DOCUMENT_ID = 'https://api.test/openapi.json'

// ajv-formats ships CommonJS with a default export that Node's ESM interop wraps.
const addFormats = 'default' in addFormatsModule ? addFormatsModule.default : addFormatsModule
const ajv = new Ajv2020({strict: false, allErrors: true})
addFormats(ajv)
ajv.addSchema({...openApiDocument, $id: DOCUMENT_ID})

const pointer = (...segments: string[]) =>
  segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
const templates = Object.keys(openApiDocument.paths ?? {}).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\./g, '\\.').replace('{slug}', '[^/]+')}$`),
}))

/** The OpenAPI path template a request URL answers to, or undefined outside /api/v1. */
function operationPath(url: string): string | undefined {
  const path = new URL(url).pathname.replace(/^\/api\/v1(\/sandbox)?/, '')
  if (!new URL(url).pathname.startsWith('/api/v1')) return undefined
  return templates.find(({pattern}) => pattern.test(path))?.template
}

export function expectMatchesOpenApi(response: Response, body: unknown): void {
  const template = operationPath(response.url)
  if (!template) return
  const status = String(response.status)
  const operation = openApiDocument.paths?.[template]?.get
  expect(operation?.responses?.[status], `${template} documents status ${status}`).toBeDefined()
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? ''
  const validate = ajv.getSchema(
    `${DOCUMENT_ID}#/${pointer('paths', template, 'get', 'responses', status, 'content', mediaType, 'schema')}`,
  )
  if (!validate) return expect.fail(`${template} ${status} documents no schema for ${mediaType}`)
  if (!validate(body))
    expect.fail(`${template} ${status} breaks the OpenAPI document: ${ajv.errorsText(validate.errors)}`)
}
