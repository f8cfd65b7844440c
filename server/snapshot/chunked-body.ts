/**
 * Up to this size a chunked body is joined into one buffer when it is built: one copy per snapshot,
 * after which every request is a single `end(buffer)`, as fast as any other document. Past it (a
 * catalog of some thousands of items) the bytes stay in their chunks, so the snapshot never holds
 * the whole document twice.
 */
const ONE_BUFFER_LIMIT = 4 * 1024 * 1024

/**
 * Bytes kept as the list of buffers they are made of and written in order: the bulk document is
 * the items' own bytes between a few separators. A small one is joined once (see ONE_BUFFER_LIMIT).
 */
export class ChunkedBody {
  readonly chunks: readonly Buffer[]
  readonly length: number
  /** All the bytes as one buffer when they were no more than the limit; otherwise undefined. */
  readonly whole: Buffer | undefined

  /** `oneBufferLimit` is a parameter so that tests can take the chunked path with a few bytes. */
  constructor(chunks: readonly Buffer[], oneBufferLimit = ONE_BUFFER_LIMIT) {
    this.length = chunks.reduce((total, chunk) => total + chunk.length, 0)
    this.whole = this.length <= oneBufferLimit ? Buffer.concat(chunks, this.length) : undefined
    this.chunks = this.whole ? [this.whole] : chunks
  }

  /** The bytes in runs of about `size` bytes: few enough writes for a socket or a compressor, each a small copy. */
  *runs(size = 64 * 1024): Generator<Buffer> {
    let run: Buffer[] = []
    let runLength = 0
    for (const chunk of this.chunks) {
      run.push(chunk)
      runLength += chunk.length
      if (runLength >= size) {
        yield Buffer.concat(run, runLength)
        run = []
        runLength = 0
      }
    }
    if (runLength > 0) yield Buffer.concat(run, runLength)
  }

  /** The whole text; copies every byte, so only for callers that need one string (a test, an example). */
  toString(encoding: BufferEncoding): string {
    return Buffer.concat(this.chunks, this.length).toString(encoding)
  }
}

export type Body = Buffer | ChunkedBody
