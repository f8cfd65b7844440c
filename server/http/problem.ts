import type {ServerResponse} from 'node:http'
import type {Problem} from '../api/v1/contract.ts'

// Every error this service sends is application/problem+json (RFC 9457), modelled once here.
// Its `type` is a stable URI: an anchor in the errors section of the developer documentation.

export const problemKinds = {
  400: {anchor: 'errors-bad-request', title: 'Bad Request'},
  404: {anchor: 'errors-not-found', title: 'Not Found'},
  405: {anchor: 'errors-method-not-allowed', title: 'Method Not Allowed'},
  429: {anchor: 'errors-too-many-requests', title: 'Too Many Requests'},
  500: {anchor: 'errors-internal', title: 'Internal Server Error'},
  503: {anchor: 'errors-unavailable', title: 'Service Unavailable'},
} as const

export type ProblemStatus = keyof typeof problemKinds

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8'

export function problemTypeUri(publicBaseUrl: string, status: ProblemStatus): string {
  return `${publicBaseUrl}/docs#${problemKinds[status].anchor}`
}

export function buildProblem(publicBaseUrl: string, status: ProblemStatus, detail: string, instance: string): Problem {
  return {type: problemTypeUri(publicBaseUrl, status), title: problemKinds[status].title, status, detail, instance}
}

/** Writes a problem response. Errors are not cached: the next request may well succeed. */
export function sendProblem(
  request: {method?: string | undefined},
  response: ServerResponse,
  problem: Problem,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(JSON.stringify(problem), 'utf8')
  response.writeHead(problem.status, {
    ...headers,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': body.length,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
  response.end(request.method === 'HEAD' ? undefined : body)
}
