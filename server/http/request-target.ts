/** The request target without its query. */
export function pathOf(url: string): string {
  const queryStart = url.indexOf('?')
  return queryStart === -1 ? url : url.slice(0, queryStart)
}

/** A request target's path, and its query without the `?` (undefined when there is no `?`). */
export function splitTarget(url: string): {path: string; query: string | undefined} {
  const queryStart = url.indexOf('?')
  return queryStart === -1
    ? {path: url, query: undefined}
    : {path: url.slice(0, queryStart), query: url.slice(queryStart + 1)}
}
