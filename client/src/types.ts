// Names for the generated types (openapi.ts), so a caller writes `Episode`, not
// `components['schemas']['Episode']`, and the client's answers are typed by their operation.
import type {components, operations} from './openapi.ts'

type Schemas = components['schemas']
export type ServiceIndex = Schemas['ServiceIndex']
export type Episode = Schemas['Episode']
export type Meetup = Schemas['Meetup']
export type Voice = Schemas['Voice']
export type PersonRef = Schemas['PersonRef']
export type JsonChapters = Schemas['JsonChapters']
export type Everything = Schemas['Everything']
export type Changes = Schemas['Changes']
export type Change = Schemas['Change']
export type SearchResults = Schemas['SearchResults']
export type Pagination = Schemas['Pagination']
export type Problem = Schemas['Problem']

export type OperationId = keyof operations
type OkContent<Id extends OperationId> = operations[Id]['responses'][200]['content']
/** The body of an operation's 200, whatever its media type (chapters are `application/json+chapters`). */
export type OkBody<Id extends OperationId> = OkContent<Id>[keyof OkContent<Id>]
/** An operation's query parameters. */
export type Query<Id extends OperationId> = NonNullable<operations[Id]['parameters']['query']>
