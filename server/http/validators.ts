import type {IncomingHttpHeaders} from 'node:http'
import fresh from 'fresh'

// Conditional requests (RFC 9110 13) against the selected variant's validators: its ETag, and the
// document's Last-Modified as a date and as sent. Plain functions of the request's header record.

/** The request headers the preconditions read (an `IncomingMessage`'s `headers` is one). */
export type ConditionalHeaders = Pick<
  IncomingHttpHeaders,
  'if-match' | 'if-unmodified-since' | 'if-none-match' | 'if-modified-since'
>

/** The document's Last-Modified, as a date and as the header says it. */
export interface LastModified {
  readonly lastModified: Date
  readonly lastModifiedHeader: string
}

/** What the preconditions leave to answer: a 412, a 304, or the method as usual. */
export type PreconditionOutcome = 'failed' | 'not-modified' | 'proceed'

/**
 * RFC 9110 13.2.2's order: If-Match (strong comparison, lists and `*`), If-Unmodified-Since only
 * without it, `failed` when either is false; then If-None-Match (weak comparison, lists and `*`),
 * If-Modified-Since only without it, `not-modified` when either is false, which `fresh`
 * implements. If-Range goes with the Range (`ifRangeHolds`).
 */
export function evaluatePreconditions(
  headers: ConditionalHeaders,
  etag: string,
  document: LastModified,
): PreconditionOutcome {
  const ifMatch = headers['if-match']
  const ifUnmodifiedSince = headers['if-unmodified-since']
  // A request with neither (nearly all) pays two lookups here and nothing more.
  if (
    (ifMatch !== undefined || ifUnmodifiedSince !== undefined) &&
    preconditionFails(ifMatch, ifUnmodifiedSince, etag, document.lastModified)
  )
    return 'failed'
  const ifNoneMatch = headers['if-none-match']
  // The common revalidation, the ETag sent back as it was received, needs no parsing.
  if (ifNoneMatch === etag) return 'not-modified'
  // Not an HTTP-date ("2099", an ISO date): ignored, as RFC 9110 13.1.3 requires, where `fresh`'s
  // Date.parse would read it. Passed on as IMF-fixdate, since Date.parse reads asctime as local time.
  const since = httpDate(headers['if-modified-since'])
  const ifModifiedSince = since === undefined ? undefined : new Date(since).toUTCString()
  if (ifNoneMatch === undefined && ifModifiedSince === undefined) return 'proceed'
  // Only the validators go to `fresh`: its rule that a request's `Cache-Control: no-cache` forces a
  // 200 suits caches, but an origin must evaluate the preconditions (RFC 9110, 13.2.1), and fetch()
  // adds that directive to every request that carries If-None-Match.
  return fresh(
    {'if-none-match': ifNoneMatch, 'if-modified-since': ifModifiedSince},
    {etag, 'last-modified': document.lastModifiedHeader},
  )
    ? 'not-modified'
    : 'proceed'
}

/**
 * Whether a Range applies under the request's If-Range (RFC 9110 13.1.5): always without one;
 * otherwise by strong comparison, so a weak tag never matches, and a date only when it is exactly
 * the Last-Modified sent.
 */
export function ifRangeHolds(
  ifRange: IncomingHttpHeaders['if-range'],
  etag: string,
  lastModifiedHeader: string,
): boolean {
  return ifRange === undefined || ifRange === etag || ifRange === lastModifiedHeader
}

/**
 * Whether the request's precondition is false for the selected variant: If-Match, when present,
 * unless it is `*` or lists this ETag by strong comparison (a `W/` tag never matches); else
 * If-Unmodified-Since, when it is an HTTP-date, if the document changed after it.
 */
function preconditionFails(
  ifMatch: string | undefined,
  ifUnmodifiedSince: string | undefined,
  etag: string,
  lastModified: Date,
): boolean {
  if (ifMatch !== undefined) return ifMatch !== etag && !listsStrongly(ifMatch, etag)
  const since = httpDate(ifUnmodifiedSince)
  return since !== undefined && lastModified.getTime() > since
}

// An entity-tag holds no DQUOTE, so a comma within one leaves pieces with one quote each, never
// equal to a whole tag: splitting at every comma finds exactly the tags a list names.
function listsStrongly(ifMatch: string, etag: string): boolean {
  if (ifMatch.trim() === '*') return true
  for (const entry of ifMatch.split(',')) if (entry.trim() === etag) return true
  return false
}

// RFC 9110 5.6.7's three forms: IMF-fixdate, RFC 850's and asctime's. Date.parse reads them all,
// but also much that is no date ("1" is 2001), which a recipient must ignore.
const HTTP_DATE =
  /^(?:[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT|[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})$/

/** Milliseconds since the epoch of an HTTP-date, undefined for anything else (a list of dates too). */
function httpDate(value: string | undefined): number | undefined {
  if (value === undefined || !HTTP_DATE.test(value)) return undefined
  // asctime has no zone, and is UTC; Date.parse would read it as local time.
  const time = Date.parse(value.endsWith(' GMT') ? value : `${value} GMT`)
  return Number.isNaN(time) ? undefined : time
}
