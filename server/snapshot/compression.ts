import {Readable} from 'node:stream'
import {buffer} from 'node:stream/consumers'
import {promisify} from 'node:util'
import zlib from 'node:zlib'
import {ownedBytes} from './owned-bytes.ts'
import type {Body} from './chunked-body.ts'

/** The content codings every representation is pre-compressed in, in the server's order of preference. */
export const CONTENT_CODINGS = ['br', 'gzip'] as const
export type ContentCoding = (typeof CONTENT_CODINGS)[number]

// Brotli quality 6 (ngx_brotli's default): close to quality 11 in size on this JSON at a small
// fraction of its CPU, which keeps a full build of a large catalog short (bench/results/).
// The window is no larger than the body (brotli's default is 4 MB whatever the size): the same
// output for a small body, with a fraction of the encoder's memory, which matters when clients
// ask for many small pages at once.
const brotliOptions = (size: number): zlib.BrotliOptions => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 6,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
    [zlib.constants.BROTLI_PARAM_LGWIN]: windowBits(size),
  },
})

function windowBits(size: number): number {
  return Math.min(
    zlib.constants.BROTLI_DEFAULT_WINDOW,
    Math.max(zlib.constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(size + 1))),
  )
}
const GZIP_OPTIONS: zlib.ZlibOptions = {level: 9}

const brotliCompress = promisify(zlib.brotliCompress)
const gzip = promisify(zlib.gzip)

/**
 * Compresses in libuv's thread pool, so the event loop keeps answering requests meanwhile. A
 * chunked body is streamed through the compressor in runs, never joined into one buffer. The
 * result owns its bytes: a small one kept in a cache must not pin zlib's chunk.
 */
export async function compress(coding: ContentCoding, body: Body): Promise<Buffer> {
  if (Buffer.isBuffer(body))
    return ownedBytes(
      await (coding === 'br' ? brotliCompress(body, brotliOptions(body.length)) : gzip(body, GZIP_OPTIONS)),
    )
  const compressor =
    coding === 'br' ? zlib.createBrotliCompress(brotliOptions(body.length)) : zlib.createGzip(GZIP_OPTIONS)
  return ownedBytes(await buffer(Readable.from(body.runs()).pipe(compressor)))
}

/** Runs `task` over `items` with at most `concurrency` in flight (the thread pool has four threads). */
export async function forEachConcurrently<T>(
  items: Iterable<T>,
  task: (item: T) => Promise<unknown>,
  concurrency = 4,
): Promise<void> {
  const iterator = items[Symbol.iterator]()
  const worker = async () => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) await task(next.value)
  }
  await Promise.all(Array.from({length: concurrency}, worker))
}
