import express, {type ErrorRequestHandler, type RequestHandler, type Response} from 'express'

/** Larger than any message a client of these read-only tools sends (a `tools/call` is under 1 KB). */
export const MAX_MCP_BODY_BYTES = 32 * 1024

// JSON-RPC 2.0 error codes, and the SDK's own for an oversized body.
const PARSE_ERROR = -32700
const INVALID_REQUEST = -32600
const BODY_TOO_LARGE = -32000

/** Far deeper than any tool call (about 6 levels); a deeper value would overflow the SDK's recursive validation. */
const MAX_MCP_NESTING = 64

const TOO_LARGE_MESSAGE = `Payload Too Large: Request body must not exceed ${MAX_MCP_BODY_BYTES} bytes`

function sendJsonRpcError(response: Response, httpStatus: 400 | 413, code: number, message: string): void {
  response.status(httpStatus).set('Cache-Control', 'no-store').json({jsonrpc: '2.0', error: {code, message}, id: null})
}

/**
 * Reads an MCP request body before the SDK sees it: at most `MAX_MCP_BODY_BYTES` (a larger
 * `Content-Length` is refused before a byte of the body is read; a chunked body is cut at the limit), one JSON-RPC message per request
 * (batches, which protocol 2025-06-18 removed, would let one rate-limit count buy a hundred
 * answers), parsed once and handed to the SDK as `request.body`. Refusals are JSON-RPC errors.
 */
export function mcpRequestBody(): [RequestHandler, RequestHandler, RequestHandler, ErrorRequestHandler] {
  // body-parser would read an announced oversized body to its end before answering; this answers
  // at once and closes the connection, so the rest is never read.
  const refuseAnnounced: RequestHandler = (request, response, next) => {
    if (Number(request.headers['content-length'] ?? 0) <= MAX_MCP_BODY_BYTES) {
      next()
      return
    }
    response.set('Connection', 'close')
    sendJsonRpcError(response, 413, BODY_TOO_LARGE, TOO_LARGE_MESSAGE)
  }
  const read = express.raw({type: () => true, limit: MAX_MCP_BODY_BYTES})
  const parse: RequestHandler = (request, response, next) => {
    const body: unknown = request.body
    if (!Buffer.isBuffer(body) || body.length === 0) {
      sendJsonRpcError(response, 400, INVALID_REQUEST, 'Invalid Request: the body is empty; send one JSON-RPC message')
      return
    }
    if (nestsDeeperThan(body, MAX_MCP_NESTING)) {
      sendJsonRpcError(
        response,
        400,
        INVALID_REQUEST,
        `Invalid Request: the message is nested deeper than ${MAX_MCP_NESTING} levels`,
      )
      return
    }
    let message: unknown
    try {
      message = JSON.parse(body.toString('utf8'))
    } catch {
      sendJsonRpcError(response, 400, PARSE_ERROR, 'Parse error: the body is not JSON')
      return
    }
    if (Array.isArray(message)) {
      sendJsonRpcError(
        response,
        400,
        INVALID_REQUEST,
        'Invalid Request: JSON-RPC batches are not accepted (MCP 2025-06-18 removed them); send one message per request',
      )
      return
    }
    request.body = message
    next()
  }
  const tooLarge: ErrorRequestHandler = (error: unknown, _request, response, next) => {
    const status = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined
    if (status !== 413) {
      next(error)
      return
    }
    sendJsonRpcError(response, 413, BODY_TOO_LARGE, TOO_LARGE_MESSAGE)
  }
  return [refuseAnnounced, read, parse, tooLarge]
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPENERS = new Set([0x5b, 0x7b]) // [ {
const CLOSERS = new Set([0x5d, 0x7d]) // ] }

/** Whether arrays and objects nest deeper than `max` in JSON text (brackets inside strings do not count); one pass, before parsing. */
function nestsDeeperThan(json: Buffer, max: number): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < json.length; index++) {
    const byte = json[index] ?? 0
    if (inString) {
      if (byte === BACKSLASH) index++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) inString = true
    else if (OPENERS.has(byte)) {
      if (++depth > max) return true
    } else if (CLOSERS.has(byte)) depth--
  }
  return false
}
