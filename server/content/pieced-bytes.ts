import {createHash} from 'node:crypto'

// Past this many pieces the bytes are joined into one buffer again (one copy every ~30 edits).
const MAX_PIECES = 64

/**
 * Immutable bytes held as views into the buffers they were read into. A file's next version is
 * its unchanged prefix and suffix (views into this one) around the few bytes read again, so an
 * edit to a 94 MB file allocates kilobytes instead of a fresh 94 MB buffer (whose first touch
 * alone costs ~100 ms of page faults here).
 */
export class PiecedBytes {
  readonly length: number
  readonly #pieces: readonly Buffer[]
  #digest: string | undefined

  constructor(pieces: readonly Buffer[]) {
    const nonEmpty = pieces.filter((piece) => piece.length > 0)
    this.#pieces = nonEmpty.length > MAX_PIECES ? [Buffer.concat(nonEmpty)] : nonEmpty
    this.length = this.#pieces.reduce((total, piece) => total + piece.length, 0)
  }

  /** The bytes from `from` to `to`, as views into the pieces (no copy). */
  slice(from: number, to: number): Buffer[] {
    const views: Buffer[] = []
    let pieceStart = 0
    for (const piece of this.#pieces) {
      const pieceEnd = pieceStart + piece.length
      if (pieceEnd > from && pieceStart < to) views.push(piece.subarray(Math.max(from, pieceStart) - pieceStart, Math.min(to, pieceEnd) - pieceStart))
      pieceStart = pieceEnd
      if (pieceStart >= to) break
    }
    return views
  }

  /** A copy of the bytes from `from` to `to`: for short ranges. */
  copy(from: number, to: number): Buffer {
    return Buffer.concat(this.slice(from, to))
  }

  /** Whether the bytes at `offset` are exactly `other`'s (memcmp, piece by piece). */
  equalsAt(offset: number, other: Buffer): boolean {
    if (offset < 0 || offset + other.length > this.length) return false
    let compared = 0
    for (const view of this.slice(offset, offset + other.length)) {
      if (!view.equals(other.subarray(compared, compared + view.length))) return false
      compared += view.length
    }
    return true
  }

  /** SHA-256 of the bytes, hex; computed once. */
  digest(): string {
    if (this.#digest === undefined) {
      const hash = createHash('sha256')
      for (const piece of this.#pieces) hash.update(piece)
      this.#digest = hash.digest('hex')
    }
    return this.#digest
  }
}
