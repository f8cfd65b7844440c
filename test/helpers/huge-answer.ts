import type {ServerResponse} from 'node:http'

/** 200 MB: an answer no client of another service should read whole. */
export const HUGE_ANSWER_BYTES = 200 * 1024 * 1024

const CHUNK = Buffer.alloc(64 * 1024, 'x')

/** What one huge answer sent before the client stopped reading, and whether its connection closed. */
export interface HugeAnswer {
  sent: number
  closed: boolean
}

/**
 * Answers `status` with a 200 MB body, written as the connection takes it, so the test holds one
 * chunk, never the body. The returned record says how much went out.
 */
export function answerHugely(response: ServerResponse, status: number, contentType: string): HugeAnswer {
  const answer: HugeAnswer = {sent: 0, closed: false}
  response.once('close', () => (answer.closed = true))
  response.writeHead(status, {'content-type': contentType, 'content-length': String(HUGE_ANSWER_BYTES)})
  const pump = () => {
    while (answer.sent < HUGE_ANSWER_BYTES && !response.destroyed) {
      answer.sent += CHUNK.length
      if (!response.write(CHUNK)) return void response.once('drain', pump)
    }
    if (answer.sent >= HUGE_ANSWER_BYTES) response.end()
  }
  pump()
  return answer
}
