import type {Problem} from './types.ts'

/**
 * Every answer that is not a 2xx, thrown as one error carrying its problem document (RFC 9457).
 * An answer without a readable problem+json body (a proxy's HTML page, a bodiless 412) gets the
 * document RFC 9457 gives such an answer: `type` `about:blank`, its status and status text.
 * A request that gets no answer at all rejects with fetch's own error instead.
 */
export class CatalogProblem extends Error {
  override readonly name = 'CatalogProblem'
  readonly problem: Problem
  /** The URL that was asked. */
  readonly url: string

  constructor(problem: Problem, url: string) {
    super(`${String(problem.status)} ${problem.title}${problem.detail ? `: ${problem.detail}` : ''} (GET ${url})`)
    this.problem = problem
    this.url = url
  }

  get status(): number {
    return this.problem.status
  }
  get title(): string {
    return this.problem.title
  }
  get detail(): string | undefined {
    return this.problem.detail
  }
  /** A stable URI per kind of problem (the API's errors section), or `about:blank`. */
  get type(): string {
    return this.problem.type
  }
}

/** The problem document of a non-2xx answer: its body when that is one, else RFC 9457's `about:blank`. */
export async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text()
  const body = parsed(text)
  if (isProblem(body)) return body
  return {type: 'about:blank', title: response.statusText || `HTTP ${String(response.status)}`, status: response.status}
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isProblem(value: unknown): value is Problem {
  return (
    typeof value === 'object' &&
    value !== null &&
    'type' in value &&
    typeof value.type === 'string' &&
    'title' in value &&
    typeof value.title === 'string' &&
    'status' in value &&
    typeof value.status === 'number' &&
    (!('detail' in value) || typeof value.detail === 'string')
  )
}
