import type {ServerResponse} from 'node:http'
import type {Body, ChunkedBody} from '../snapshot/chunked-body.ts'

/** Writes a pre-built body and ends the response: one buffer at once, a chunked one as the socket takes it. */
export function writeBody(response: ServerResponse, body: Body): void {
  if (Buffer.isBuffer(body)) response.end(body)
  else if (body.whole) response.end(body.whole)
  else writeChunks(response, body)
}

/**
 * A large chunked body (the bulk document of a big catalog) is written from its own chunks, no
 * stream or copy per request: each burst is corked into one `writev` and goes on until the socket
 * has enough queued (write returns false); the next burst waits for 'drain'. A response that closes
 * first (the client went away) stops the writing and lets go of the chunks.
 */
function writeChunks(response: ServerResponse, body: ChunkedBody): void {
  const {chunks} = body
  let next = 0
  const writeBurst = () => {
    response.cork()
    let writable = true
    while (writable && next < chunks.length) writable = response.write(chunks[next++] ?? EMPTY)
    response.uncork()
    if (next === chunks.length) {
      response.off('close', stop)
      response.end()
    } else response.once('drain', writeBurst)
  }
  const stop = () => {
    next = chunks.length
    response.off('drain', writeBurst)
  }
  response.once('close', stop)
  writeBurst()
}

const EMPTY = Buffer.alloc(0)
