import type {IncomingMessage} from 'node:http'
import {ChunkedBody, type Body} from '../snapshot/chunked-body.ts'
import {ifRangeHolds} from './validators.ts'

// RFC 9110 range requests (14.1, 14.2, 13.1.5, 15.3.7, 15.5.17) for documents that say
// `Accept-Ranges: bytes`. A GET gets a 206 for exactly one valid byte range (a suffix longer than
// the document is all of it) and a 416 when that one range is unsatisfiable; every other Range
// is ignored (14.2: a server MAY ignore it), so several ranges, an invalid one (last before
// first) or a malformed one get the whole 200. No multipart/byteranges, and nothing is merged.

type RangeAnswer =
  {readonly status: 200} | {readonly status: 206; readonly start: number; readonly end: number} | {readonly status: 416}

const WHOLE: RangeAnswer = {status: 200}
const UNSATISFIABLE: RangeAnswer = {status: 416}

// One range-spec (14.1.1): first-last, first- or -suffix, digits only; the unit is case-insensitive.
const ONE_RANGE = /^bytes=(\d*)-(\d*)$/i

/**
 * What a GET with `Range` gets for bytes of `length` named by `etag` and `lastModified` (an HTTP
 * date, as sent): the whole when the Range is not one valid byte range or `If-Range` names other
 * bytes (validators.ts); HEAD and other methods never take a range.
 */
export function answerRange(request: IncomingMessage, length: number, etag: string, lastModified: string): RangeAnswer {
  const range = request.headers.range
  if (request.method !== 'GET' || range === undefined) return WHOLE
  if (!ifRangeHolds(request.headers['if-range'], etag, lastModified)) return WHOLE
  const [, first = '', last = ''] = ONE_RANGE.exec(range) ?? []
  if (first === '') {
    if (last === '') return WHOLE // not a range-spec (or not bytes)
    const suffix = Number(last)
    if (suffix === 0) return UNSATISFIABLE
    // An empty document has no byte a 206's Content-Range could name.
    return length === 0 ? WHOLE : {status: 206, start: Math.max(length - suffix, 0), end: length - 1}
  }
  const start = Number(first)
  if (last !== '' && Number(last) < start) return WHOLE // an invalid int-range
  if (start >= length) return UNSATISFIABLE
  return {status: 206, start, end: last === '' ? length - 1 : Math.min(Number(last), length - 1)}
}

/** `bytes first-last/length` for a 206, `bytes *\/length` for a 416. */
export const contentRange = (answer: RangeAnswer, length: number) =>
  answer.status === 206 ? `bytes ${answer.start}-${answer.end}/${length}` : `bytes */${length}`

/** Bytes `start` to `end` inclusive, as views of the body's own buffers: nothing is copied for a large one. */
export function sliceBody(body: Body, start: number, end: number): Body {
  if (Buffer.isBuffer(body)) return body.subarray(start, end + 1)
  if (body.whole) return body.whole.subarray(start, end + 1)
  const parts: Buffer[] = []
  let offset = 0
  for (const chunk of body.chunks) {
    const from = Math.max(start - offset, 0)
    const to = Math.min(end + 1 - offset, chunk.length)
    if (from < to) parts.push(chunk.subarray(from, to))
    offset += chunk.length
    if (offset > end) break
  }
  return new ChunkedBody(parts)
}
