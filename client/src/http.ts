import type {EtagCache} from './etag-cache.ts'
import {CatalogProblem, problemOf} from './problem.ts'

/** The one thing the client needs from its platform: the global `fetch`, or one a test passes in. */
export type FetchFunction = (url: string, init: {headers: Record<string, string>}) => Promise<Response>

export interface Http {
  /**
   * The JSON body of a GET. With `revalidate` (the default), an answer kept in the cache is asked
   * for with `If-None-Match`, and a 304 gives that answer's body again. A non-2xx throws a CatalogProblem.
   */
  get<Body>(url: string, options?: {revalidate?: boolean}): Promise<Body>
}

export function createHttp(fetch: FetchFunction, cache: EtagCache): Http {
  async function bodyText(url: string, revalidate: boolean): Promise<string> {
    const cached = revalidate ? cache.get(url) : undefined
    const response = await fetch(url, {headers: cached ? {'if-none-match': cached.etag} : {}})
    if (cached && response.status === 304) return cached.text
    if (!response.ok) throw new CatalogProblem(await problemOf(response), url)
    const text = await response.text()
    const etag = response.headers.get('etag')
    if (revalidate && etag) cache.set(url, {etag, text})
    return text
  }
  return {
    async get<Body>(url: string, {revalidate = true} = {}): Promise<Body> {
      // Asserted, not checked: the server's answers follow its OpenAPI document, which these types are
      // generated from; checking them at run time would take a validator, a dependency the client has not.
      return JSON.parse(await bodyText(url, revalidate)) as Body
    },
  }
}
