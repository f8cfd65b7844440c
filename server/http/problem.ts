import {STATUS_CODES, type ServerResponse} from 'node:http'
import type {Problem} from '../../catalog/v1/contract.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'

// Every error this service sends is application/problem+json (RFC 9457), modelled once here.
// Its `type` is a stable URI per status: an anchor in the errors section of the developer
// documentation, named after the reason phrase (`#errors-not-found`, `#errors-bad-request`, ...).

export const PROBLEM_STATUSES = [400, 404, 405, 408, 409, 410, 413, 414, 415, 417, 421, 429, 431, 500, 503] as const
export type ProblemStatus = (typeof PROBLEM_STATUSES)[number]

export function isProblemStatus(status: unknown): status is ProblemStatus {
  return PROBLEM_STATUSES.some((known) => known === status)
}

export function problemTitle(status: number): string {
  return STATUS_CODES[status] ?? 'Error'
}

export function problemAnchor(status: number): string {
  return `errors-${problemTitle(status)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')}`
}

export function buildProblem(publicBaseUrl: string, status: ProblemStatus, detail: string, instance: string): Problem {
  return {type: `${publicBaseUrl}/docs#${problemAnchor(status)}`, title: problemTitle(status), status, detail, instance}
}

export const unknownPathDetail = (publicBaseUrl: string) =>
  `No such path. The API starts at ${publicBaseUrl}/api/v1/index.json.`

/** GET and HEAD: the only methods the read-only documents answer. */
export function isReadMethod(method: string | undefined): boolean {
  return method === 'GET' || method === 'HEAD'
}

/** A 405 problem with the `Allow` header RFC 9110 requires, for a path that exists. */
export function sendMethodNotAllowed(
  request: {method?: string | undefined},
  response: ServerResponse,
  options: {publicBaseUrl: string; allow: string; instance: string; detail: string},
): void {
  sendProblem(request, response, buildProblem(options.publicBaseUrl, 405, options.detail, options.instance), {
    Allow: options.allow,
  })
}

/**
 * Writes a problem response. Errors are not cached: the next request may well succeed.
 * `extraHeaders` is a flat name, value list (the request's rate-limit and CORS headers).
 */
export function sendProblem(
  request: {method?: string | undefined},
  response: ServerResponse,
  problem: Problem,
  headers: Record<string, string> = {},
  extraHeaders: readonly string[] = [],
): void {
  const body = Buffer.from(JSON.stringify(problem), 'utf8')
  response.writeHead(problem.status, [
    ...Object.entries(headers).flat(),
    'Content-Type',
    MEDIA_TYPES.problem,
    'Content-Length',
    String(body.length),
    'Cache-Control',
    'no-store',
    ...extraHeaders,
  ])
  response.end(request.method === 'HEAD' ? undefined : body)
}
