import type {IncomingMessage} from 'node:http'
import parseRange from 'range-parser'
import {ChunkedBody, type Body} from '../snapshot/chunked-body.ts'

// RFC 9110 range requests (14.2, 13.1.5, 15.3.7, 15.5.17), as nginx answers them for a static file:
// one range of the selected coding's bytes gets a 206; several are answered with the whole 200;
// a range that starts past the end is a 416. Only for documents that say `Accept-Ranges: bytes`.

/** The header a representation carries to take range requests: its bytes are served in parts. */
export const ACCEPT_RANGES = {'Accept-Ranges': 'bytes'} as const

type RangeAnswer =
  {readonly status: 200} | {readonly status: 206; readonly start: number; readonly end: number} | {readonly status: 416}

const WHOLE: RangeAnswer = {status: 200}

/**
 * What a GET with `Range` gets for bytes of `length` named by `etag` and `lastModified` (an HTTP
 * date, as sent): the whole when the Range is not one this server reads (not bytes, malformed, or
 * several ranges) or `If-Range` names other bytes; HEAD and other methods never take a range.
 */
export function answerRange(request: IncomingMessage, length: number, etag: string, lastModified: string): RangeAnswer {
  const range = request.headers.range
  if (request.method !== 'GET' || range === undefined) return WHOLE
  const ifRange = request.headers['if-range']
  // A strong comparison: a weak tag never matches, and a date only when it is exactly Last-Modified.
  if (ifRange !== undefined && ifRange !== etag && ifRange !== lastModified) return WHOLE
  const ranges = parseRange(length, range, {combine: true})
  if (ranges === -1) return {status: 416}
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1 || !ranges[0]) return WHOLE
  return {status: 206, start: ranges[0].start, end: ranges[0].end}
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
