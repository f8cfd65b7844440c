import {expect} from 'vitest'
import type {z} from 'zod'
import {problemSchema} from '../../catalog/v1/contract.ts'
import {expectMatchesOpenApi} from './openapi.ts'

/**
 * Parses a response body with a contract schema, failing the test with zod's explanation; an API
 * response is also validated against the published OpenAPI document.
 */
export async function readContract<Schema extends z.ZodType>(
  response: Response,
  schema: Schema,
): Promise<z.infer<Schema>> {
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
  const body: unknown = await response.json()
  expectMatchesOpenApi(response, body)
  const result = schema.safeParse(body)
  if (!result.success) expect.fail(`response breaks the contract: ${result.error.message}`)
  return result.data
}

export async function readProblem(response: Response, status: number) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
  // A refusal is about this request at this moment: no cache may keep it.
  expect(response.headers.get('cache-control')).toBe('no-store')
  const body: unknown = await response.json()
  expectMatchesOpenApi(response, body)
  const problem = problemSchema.parse(body)
  expect(problem.status).toBe(status)
  return problem
}
