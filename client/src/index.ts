// @code-talks/catalog-client: a typed client of the Code Talks catalog API that needs nothing but fetch.
export {createCatalogClient, type CatalogClient, type CatalogClientOptions} from './client.ts'
export type {FetchFunction} from './http.ts'
export {CatalogProblem} from './problem.ts'
export type {CatalogMirror, SyncResult} from './sync.ts'
export type {
  Change,
  Episode,
  Everything,
  JsonChapters,
  Meetup,
  PersonRef,
  Problem,
  SearchResults,
  ServiceIndex,
  Voice,
} from './types.ts'
export type {components, operations, paths} from './openapi.ts'
