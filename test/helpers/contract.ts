import {expect} from 'vitest'
import type {z} from 'zod'
import {problemSchema} from '../../server/api/v1/contract.ts'

/** Parses a response body with a contract schema, failing the test with zod's explanation. */
export async function readContract<Schema extends z.ZodType>(response: Response, schema: Schema): Promise<z.infer<Schema>> {
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
  const result = schema.safeParse(await response.json())
  if (!result.success) expect.fail(`response breaks the contract: ${result.error.message}`)
  return result.data
}

export async function readProblem(response: Response, status: number) {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
  const problem = problemSchema.parse(await response.json())
  expect(problem.status).toBe(status)
  return problem
}
