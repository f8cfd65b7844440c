import {API_V1_PREFIX} from '../../catalog/v1/links.ts'
import {
  CHANGES_PATH,
  CHAPTERS_PATH,
  ITEM_PATH,
  LIST_PATH,
  SEARCH_PATH,
  TRANSCRIPT_PATH,
  withoutSandbox,
} from '../http/resolve.ts'
import {EVENTS_PATH} from '../http/event-streams.ts'
import {MCP_PATH} from '../mcp/http.ts'
import {WEBHOOK_PATH} from '../webhooks/sanity-webhook.ts'

const FIXED_ROUTES = new Set([WEBHOOK_PATH, MCP_PATH, `${MCP_PATH}/health`, '/status'])
/** The API's paths that name one resource whatever the query: search, the change feed, the event stream. */
const FIXED_API_PATHS = new Set([SEARCH_PATH, CHANGES_PATH, EVENTS_PATH.slice(API_V1_PREFIX.length)])

/**
 * The `route` label of a request: the path with slugs folded into `{slug}`, so the metrics keep a
 * bounded set of series whatever clients ask for. `isKnownPath` names the other paths kept as they
 * are: the pre-built documents (OpenAPI, portal, discovery, sitemaps), a fixed set per snapshot.
 */
export function routeLabel(path: string, isKnownPath: (path: string) => boolean): string {
  if (path.startsWith(`${API_V1_PREFIX}/`)) {
    const relative = path.slice(API_V1_PREFIX.length)
    const served = withoutSandbox(relative)
    const prefix = served === relative ? API_V1_PREFIX : `${API_V1_PREFIX}/sandbox`
    if (served === '/index.json' || served === '/all.json' || FIXED_API_PATHS.has(served) || LIST_PATH.test(served))
      return prefix + served
    const item = ITEM_PATH.exec(served)
    if (item?.[2]) return `${prefix}/${item[1]}/{slug}.json`
    if (CHAPTERS_PATH.test(served)) return `${prefix}/episodes/{slug}/chapters.json`
    const transcript = TRANSCRIPT_PATH.exec(served)
    if (transcript?.[2]) return `${prefix}/episodes/{slug}/transcript.${transcript[2]}`
    return `${prefix}/{unknown}`
  }
  if (FIXED_ROUTES.has(path) || isKnownPath(path)) return path
  return '{unknown}'
}

// Labels are few (slugs fold), paths are not: the cache is cleared when it reaches this size.
const MAX_REMEMBERED_PATHS = 10_000

/** `routeLabel`, remembered per path, so a repeated request costs a Map lookup instead of regular expressions. */
export class RouteLabels {
  readonly #known = new Map<string, string>()
  readonly #isKnownPath: (path: string) => boolean

  constructor(isKnownPath: (path: string) => boolean) {
    this.#isKnownPath = isKnownPath
  }

  of(path: string): string {
    let label = this.#known.get(path)
    if (label === undefined) {
      if (this.#known.size >= MAX_REMEMBERED_PATHS) this.#known.clear()
      label = routeLabel(path, this.#isKnownPath)
      this.#known.set(path, label)
    }
    return label
  }
}
