import type {Http} from './http.ts'
import type {Pagination} from './types.ts'

/**
 * The URL of the page after `asked`: `pagination.next`'s query on the endpoint that was asked.
 * `next` names the server's public origin and `/api/v1`; keeping the client's own origin and base
 * path follows it just the same from an internal address, a test server or the sandbox.
 */
export function nextPage(asked: string, next: string | null): string | null {
  if (next === null) return null
  const url = new URL(asked)
  url.search = new URL(next, asked).search
  return url.toString()
}

/** Every item of a list, page after page, following each page's `pagination.next`. */
export async function* itemsOf<Item>(http: Http, first: string): AsyncGenerator<Item, void, undefined> {
  let url: string | null = first
  while (url !== null) {
    const page: {data: Item[]; pagination: Pagination} = await http.get(url)
    yield* page.data
    url = nextPage(url, page.pagination.next)
  }
}
