/**
 * The bytes in a buffer of their own. Node hands out small buffers as views into shared slabs
 * (`Buffer.concat` below 4 KB takes them from an 8 KB pool; zlib's output is a view of its 16 to
 * 64 KB chunk), and a view keeps its whole slab alive: a cache of small pages would hold slabs,
 * not pages, and count a fraction of what it holds. Only views are copied.
 */
export function ownedBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes
  const own = Buffer.allocUnsafeSlow(bytes.length)
  bytes.copy(own)
  return own
}

/** A Buffer over the same memory as `bytes` (made by TextEncoder, say), for Node's APIs: nothing is copied. */
export const bufferOver = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
