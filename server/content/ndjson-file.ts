import {createHash} from 'node:crypto'
import {open, stat} from 'node:fs/promises'
import {setImmediate} from 'node:timers/promises'
import {parseDocumentLine, type SanityDocument} from './ndjson.ts'
import type {TouchedDocument} from './source.ts'

/**
 * A `sanity dataset export` file, read again whenever it changes. Only the lines between the first
 * and the last changed byte are parsed again (an edit or an append costs a read and a compare of
 * the file, not a parse of 100k documents), and the documents they touch are remembered until
 * `takeChanges` is called.
 */
export interface DatasetFile {
  /** The documents the file holds now: the same array while the file is unchanged, a new one otherwise. */
  read(): Promise<readonly SanityDocument[]>
  /** Documents touched by reads since the last call, first read excepted. */
  takeChanges(): TouchedDocument[]
  /**
   * SHA-256 of the file's bytes now. Those bytes become what the next read is compared with, so a
   * change made after the fingerprint is reported as a change even if nothing was parsed before.
   */
  fingerprint(): Promise<string>
}

// A line's text is not kept: the file's bytes are (one buffer, outside the heap), and the text of
// 100k Hebrew documents would be twice their size again as JavaScript strings.
interface Line {
  start: number
  /** Offset of the line's newline, or the file's length for a last line without one. */
  end: number
  document: SanityDocument | undefined
}

interface FileState {
  stamp: string
  bytes: Buffer
  lines: Line[]
  documents: SanityDocument[]
}

const NEWLINE = 0x0a
const PARSE_SLICE_BYTES = 1 << 20

export function openDatasetFile(path: string): DatasetFile {
  let state: FileState | undefined
  const touched = new Map<string, TouchedDocument>()

  const parseLines = (bytes: Buffer, from: number, to: number, firstLineNumber: number): Line[] => {
    const lines: Line[] = []
    for (let start = from; start < to; ) {
      const newline = bytes.indexOf(NEWLINE, start)
      const end = newline === -1 || newline > to ? to : newline
      lines.push({start, end, document: parseDocumentLine(bytes.toString('utf8', start, end), `${path}:${firstLineNumber + lines.length}`)})
      start = end + 1
    }
    return lines
  }
  // A whole file (1.2 s at 100k documents) is parsed a megabyte of lines at a time with the event
  // loop turning in between, so a server that is already answering (a warm restart) keeps answering.
  const parseAllLines = async (bytes: Buffer): Promise<Line[]> => {
    const lines: Line[] = []
    for (let from = 0; from < bytes.length; ) {
      const newline = bytes.indexOf(NEWLINE, Math.min(from + PARSE_SLICE_BYTES, bytes.length - 1))
      const to = newline === -1 ? bytes.length : newline + 1
      lines.push(...parseLines(bytes, from, to, lines.length + 1))
      from = to
      await setImmediate()
    }
    return lines
  }

  const reread = (previous: FileState, bytes: Buffer, stamp: string): FileState => {
    const old = previous.bytes
    const prefix = commonPrefixLength(old, bytes)
    const suffix = Math.min(commonSuffixLength(old, bytes), Math.min(old.length, bytes.length) - prefix)
    const shift = bytes.length - old.length
    // Lines whose bytes and newline lie in the common prefix or suffix are the same lines, moved by `shift`.
    let kept = 0
    while (kept < previous.lines.length && (previous.lines[kept]?.end ?? Infinity) < prefix) kept++
    let keptFromEnd = previous.lines.length
    while (keptFromEnd > kept && (previous.lines[keptFromEnd - 1]?.start ?? 0) > old.length - suffix) keptFromEnd--
    const middleStart = kept > 0 ? (previous.lines[kept - 1]?.end ?? 0) + 1 : 0
    const middleEnd = keptFromEnd < previous.lines.length ? (previous.lines[keptFromEnd]?.start ?? 0) + shift - 1 : bytes.length
    const oldMiddle = previous.lines.slice(kept, keptFromEnd)
    const newMiddle = parseLines(bytes, middleStart, middleEnd, kept + 1)
    // A line that only moved within the changed region keeps its document and touches nothing.
    const textOf = (from: Buffer) => (line: Line) => from.toString('latin1', line.start, line.end)
    const oldTexts = new Map(oldMiddle.map((line) => [textOf(old)(line), line.document]))
    const newTexts = new Set(newMiddle.map(textOf(bytes)))
    for (const line of newMiddle) {
      const unchanged = oldTexts.get(textOf(bytes)(line))
      if (unchanged) line.document = unchanged
      else if (line.document) touched.set(line.document._id, {id: line.document._id, type: line.document._type})
    }
    for (const line of oldMiddle) {
      if (line.document && !newTexts.has(textOf(old)(line)) && !touched.has(line.document._id)) touched.set(line.document._id, {id: line.document._id, type: line.document._type})
    }
    // The previous state is dropped once this one exists, so its lines after the change are moved in place.
    const after = previous.lines.slice(keptFromEnd)
    for (const line of after) {
      line.start += shift
      line.end += shift
    }
    const lines = previous.lines.slice(0, kept).concat(newMiddle, after)
    return {stamp, bytes, lines, documents: documentsOf(lines)}
  }

  // Bytes fingerprinted before anything was parsed: the first read parses them, then compares.
  let unparsed: {stamp: string; bytes: Buffer} | undefined
  const digests = new WeakMap<Buffer, string>()
  const digestOf = (bytes: Buffer) => {
    let digest = digests.get(bytes)
    if (!digest) digests.set(bytes, (digest = createHash('sha256').update(bytes).digest('hex')))
    return digest
  }
  const currentStamp = async () => {
    const {mtimeMs, size} = await stat(path)
    return `${mtimeMs} ${size}`
  }

  const readNow = async (): Promise<readonly SanityDocument[]> => {
    const stamp = await currentStamp()
    if (state?.stamp === stamp) return state.documents
    if (!state) {
      const baseline = unparsed ?? {stamp, bytes: await readWhole(path)}
      unparsed = undefined
      const lines = await parseAllLines(baseline.bytes)
      state = {stamp: baseline.stamp, bytes: baseline.bytes, lines, documents: documentsOf(lines)}
      if (state.stamp === stamp) return state.documents
    }
    state = reread(state, await readWhole(path), stamp)
    return state.documents
  }
  const fingerprintNow = async (): Promise<string> => {
    // Once parsed, the file is fingerprinted as the next read leaves it (changes reported as usual).
    if (state) {
      await readNow()
      return digestOf(state.bytes)
    }
    const stamp = await currentStamp()
    if (unparsed?.stamp !== stamp) unparsed = {stamp, bytes: await readWhole(path)}
    return digestOf(unparsed.bytes)
  }
  // Reads run one after another, each from the state the previous one left.
  let queue: Promise<unknown> = Promise.resolve()
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work)
    queue = result.catch(() => undefined)
    return result
  }
  return {
    read: () => inTurn(readNow),
    fingerprint: () => inTurn(fingerprintNow),
    takeChanges() {
      const changes = [...touched.values()]
      touched.clear()
      return changes
    },
  }
}

/**
 * The file's bytes in as few reads as the kernel allows. (`readFile` reads 512 KiB at a time, one
 * thread-pool round trip each: ~190 for a 94 MB file, each waiting behind any compression queued.)
 */
async function readWhole(path: string): Promise<Buffer> {
  const handle = await open(path, 'r')
  try {
    const {size} = await handle.stat()
    const bytes = Buffer.allocUnsafe(size)
    let filled = 0
    while (filled < size) {
      const {bytesRead} = await handle.read(bytes, filled, size - filled, filled)
      if (bytesRead === 0) break // the file shrank while being read: what was there is what is read
      filled += bytesRead
    }
    return bytes.subarray(0, filled)
  } finally {
    await handle.close()
  }
}

function documentsOf(lines: readonly Line[]): SanityDocument[] {
  const documents: SanityDocument[] = []
  for (const line of lines) if (line.document) documents.push(line.document)
  return documents
}

// Compared in blocks with Buffer#compare (memcmp), then byte by byte inside the first differing block.
const BLOCK = 64 * 1024

function commonPrefixLength(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length)
  let offset = 0
  while (offset + BLOCK <= limit && a.compare(b, offset, offset + BLOCK, offset, offset + BLOCK) === 0) offset += BLOCK
  while (offset < limit && a[offset] === b[offset]) offset++
  return offset
}

function commonSuffixLength(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length)
  let length = 0
  while (length + BLOCK <= limit && a.compare(b, b.length - length - BLOCK, b.length - length, a.length - length - BLOCK, a.length - length) === 0) length += BLOCK
  while (length < limit && a[a.length - length - 1] === b[b.length - length - 1]) length++
  return length
}
