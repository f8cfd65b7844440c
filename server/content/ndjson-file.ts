import {open, type FileHandle} from 'node:fs/promises'
import {setImmediate} from 'node:timers/promises'
import {documentSetOf, isPublished, type DocumentSet} from './document-set.ts'
import {parseDocumentLine, type SanityDocument} from './ndjson.ts'
import {commonPrefixLength, commonSuffixLength, keptLines, touchedDocuments} from './line-diff.ts'
import {PiecedBytes} from './pieced-bytes.ts'
import type {TouchedDocument} from './source.ts'

/**
 * A `sanity dataset export` file, read again whenever it changes. Only the lines between the first
 * and the last changed byte are parsed again (an edit or an append costs a read and a compare of
 * the file, not a parse of 100k documents), and the documents they touch are remembered until
 * `takeChanges` is called.
 *
 * What is held between reads is the file's bytes and where each document's line is, not the
 * parsed documents: 100k Hebrew documents take 94 MB as UTF-8 and 430 MB as JavaScript objects.
 * A set that `read` returns parses the lines a query asks for, once per set.
 */
export interface DatasetFile {
  /** The published documents the file holds now, parsed when asked for. */
  read(): Promise<DocumentSet>
  /** Reads the file as `read` does, keeping nothing parsed: a first read's whole parse, ahead of the first edit. */
  index(): Promise<void>
  /** Documents touched by reads since the last call, first read excepted. */
  takeChanges(): TouchedDocument[]
  /**
   * SHA-256 of the file's bytes now. Those bytes become what the next read is compared with, so a
   * change made after the fingerprint is reported as a change even if nothing was parsed before.
   */
  fingerprint(): Promise<string>
}

interface Line {
  start: number
  /** Offset of the line's newline, or the file's length for a last line without one. */
  end: number
  /** The document's id and type; undefined for a blank line. */
  identity: TouchedDocument | undefined
}

interface FileState {
  stamp: string
  bytes: PiecedBytes
  lines: Line[]
  /** The line of each published document by id, made when first asked for. */
  index?: Map<string, Line>
}

/** How the file differs from a state: the lines between `kept` and `keptFromEnd` were replaced by `newMiddle`, read from `middle`. */
interface Comparison {
  stamp: string
  size: number
  /** Bytes the file shares with the previous state at its start, and at its end. */
  prefix: number
  suffix: number
  kept: number
  keptFromEnd: number
  shift: number
  middleStart: number
  middle: Buffer
  newMiddle: Line[]
}

/** The file as one open handle saw it: every read of one version goes through one handle. */
interface OpenedFile {
  handle: FileHandle
  size: number
  stamp: string
}

const NEWLINE = 0x0a
const PARSE_SLICE_BYTES = 1 << 20
// The changed region is found by reading the file in chunks into one reused buffer and comparing
// them with the bytes held, from the start and then from the end.
const COMPARE_CHUNK_BYTES = 4 << 20
const READ_ATTEMPTS = 3

export function openDatasetFile(path: string): DatasetFile {
  let state: FileState | undefined
  const touched = new Map<string, TouchedDocument>()
  let scratch: Buffer | undefined

  /**
   * The lines of `bytes[from, to)`, their offsets counted from `base` (where `bytes` sits in the
   * file). Every line is parsed, so a broken one is reported now; its document goes to `parsed`
   * when given, and is otherwise dropped.
   */
  const parseLines = (bytes: Buffer, from: number, to: number, firstLineNumber: number, base = 0, parsed?: SanityDocument[]): Line[] => {
    const lines: Line[] = []
    for (let start = from; start < to;) {
      const newline = bytes.indexOf(NEWLINE, start)
      const end = newline === -1 || newline > to ? to : newline
      const document = parseDocumentLine(bytes.toString('utf8', start, end), `${path}:${firstLineNumber + lines.length}`)
      if (document) parsed?.push(document)
      lines.push({start: base + start, end: base + end, identity: document && {id: document._id, type: document._type}})
      start = end + 1
    }
    return lines
  }
  // A whole file (1.2 s at 100k documents) is parsed a megabyte of lines at a time with the event
  // loop turning in between, so a server that is already answering (a warm restart) keeps answering.
  const parseAllLines = async (bytes: Buffer, parsed: SanityDocument[] | undefined): Promise<Line[]> => {
    const lines: Line[] = []
    for (let from = 0; from < bytes.length;) {
      const newline = bytes.indexOf(NEWLINE, Math.min(from + PARSE_SLICE_BYTES, bytes.length - 1))
      const to = newline === -1 ? bytes.length : newline + 1
      lines.push(...parseLines(bytes, from, to, lines.length + 1, 0, parsed))
      from = to
      await setImmediate()
    }
    return lines
  }

  /** `length` bytes of the file at `position`, into the reused chunk buffer. */
  const readChunk = async (file: OpenedFile, position: number, length: number): Promise<Buffer> => {
    scratch ??= Buffer.allocUnsafe(COMPARE_CHUNK_BYTES)
    return readExactly(file.handle, scratch.subarray(0, length), position)
  }

  const commonPrefix = async (old: PiecedBytes, file: OpenedFile): Promise<number> => {
    const limit = Math.min(old.length, file.size)
    for (let offset = 0; offset < limit; offset += COMPARE_CHUNK_BYTES) {
      const chunk = await readChunk(file, offset, Math.min(COMPARE_CHUNK_BYTES, limit - offset))
      if (!old.equalsAt(offset, chunk)) return offset + commonPrefixLength(old.copy(offset, offset + chunk.length), chunk)
    }
    return limit
  }

  const commonSuffix = async (old: PiecedBytes, file: OpenedFile, limit: number): Promise<number> => {
    for (let length = 0; length < limit; length += COMPARE_CHUNK_BYTES) {
      const size = Math.min(COMPARE_CHUNK_BYTES, limit - length)
      const chunk = await readChunk(file, file.size - length - size, size)
      const oldStart = old.length - length - size
      if (!old.equalsAt(oldStart, chunk)) return length + commonSuffixLength(old.copy(oldStart, oldStart + size), chunk)
    }
    return limit
  }

  /** What changed between `previous` and the file: read and parsed, nothing applied yet. */
  const compare = async (previous: FileState, file: OpenedFile): Promise<Comparison> => {
    const old = previous.bytes
    const prefix = await commonPrefix(old, file)
    const suffix = await commonSuffix(old, file, Math.min(old.length, file.size) - prefix)
    const shift = file.size - old.length
    // Lines whose bytes and newline lie in the common prefix or suffix are the same lines, moved by `shift`.
    const {kept, keptFromEnd} = keptLines(previous.lines, old.length, prefix, suffix)
    const middleStart = kept > 0 ? (previous.lines[kept - 1]?.end ?? 0) + 1 : 0
    const middleEnd = keptFromEnd < previous.lines.length ? (previous.lines[keptFromEnd]?.start ?? 0) + shift - 1 : file.size
    // Only the changed region is read into a buffer of its own; the rest stays views into `old`.
    const middle = await readExactly(file.handle, Buffer.allocUnsafe(Math.max(0, middleEnd - middleStart)), middleStart)
    const newMiddle = parseLines(middle, 0, middle.length, kept + 1, middleStart)
    return {stamp: file.stamp, size: file.size, prefix, suffix, kept, keptFromEnd, shift, middle, middleStart, newMiddle}
  }

  /** The state after `comparison`; records the documents it touched. `previous` is not used again. */
  const apply = (previous: FileState, comparison: Comparison): FileState => {
    const {prefix, suffix, kept, keptFromEnd, shift, middle, middleStart, newMiddle} = comparison
    const old = previous.bytes
    const oldMiddle = previous.lines.slice(kept, keptFromEnd)
    // Compared as latin1 text: one char a byte, so equal text is equal bytes.
    const replaced = oldMiddle.map((line) => ({text: old.copy(line.start, line.end).toString('latin1'), identity: line.identity}))
    const replacement = newMiddle.map((line) => ({text: middle.toString('latin1', line.start - middleStart, line.end - middleStart), identity: line.identity}))
    for (const identity of touchedDocuments(replaced, replacement)) touched.set(identity.id, identity)
    // The previous state is dropped once this one exists, so its lines after the change are moved in place.
    const after = previous.lines.slice(keptFromEnd)
    for (const line of after) {
      line.start += shift
      line.end += shift
    }
    const lines = previous.lines.slice(0, kept).concat(newMiddle, after)
    // The file now: the common prefix and suffix, views into the old bytes, around the bytes between
    // them (which the changed lines read, `middle`, contain). Byte for byte, or later edits would
    // be compared with something the file never held.
    const changed = middle.subarray(prefix - middleStart, comparison.size - suffix - middleStart)
    const bytes = new PiecedBytes([...old.slice(0, prefix), changed, ...old.slice(old.length - suffix, old.length)])
    return {stamp: comparison.stamp, bytes, lines}
  }

  /**
   * Runs `work` on the file as one open handle sees it. A file replaced by a rename is read whole
   * through the old handle; one rewritten in place while being read (its size or modification
   * time moved) is read again, and refused after READ_ATTEMPTS such reads. `work` must change
   * nothing: its result is dropped when the file moved under it.
   */
  const withFile = async <T>(work: (file: OpenedFile) => Promise<T>): Promise<T> => {
    for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
      const handle = await open(path, 'r')
      try {
        const before = await handle.stat()
        const result = await work({handle, size: before.size, stamp: `${before.mtimeMs} ${before.size}`})
        const after = await handle.stat()
        if (after.mtimeMs === before.mtimeMs && after.size === before.size) return result
      } finally {
        await handle.close()
      }
    }
    throw new Error(`${path} kept changing while it was read (${READ_ATTEMPTS} times); it will be read again on its next change`)
  }
  const readWhole = (file: OpenedFile) => readExactly(file.handle, Buffer.allocUnsafe(file.size), 0)

  // Bytes fingerprinted before anything was parsed: the first read parses them, then compares.
  let unparsed: {stamp: string; bytes: Buffer} | undefined

  const readNow = async (keepParsed = true): Promise<DocumentSet> => {
    // The documents of a first, whole parse go to the set this read returns (a cold start's full
    // query uses them); they are not kept after it.
    let parsed: SanityDocument[] | undefined
    if (!state) {
      const baseline = unparsed ?? (await withFile(async (file) => ({stamp: file.stamp, bytes: await readWhole(file)})))
      parsed = keepParsed ? [] : undefined
      const lines = await parseAllLines(baseline.bytes, parsed)
      state = {stamp: baseline.stamp, bytes: new PiecedBytes([baseline.bytes]), lines}
      unparsed = undefined
    }
    const current = state
    const comparison = await withFile(async (file) => (file.stamp === current.stamp ? undefined : compare(current, file)))
    if (!comparison) return documentSetOfFile(path, current, parsed)
    state = apply(current, comparison)
    return documentSetOfFile(path, state)
  }

  const fingerprintNow = async (): Promise<string> => {
    // Once parsed, the file is fingerprinted as the next read leaves it (changes reported as usual).
    if (state) {
      await readNow()
      return state.bytes.digest()
    }
    const baseline = await withFile(async (file) => (unparsed?.stamp === file.stamp ? unparsed : {stamp: file.stamp, bytes: await readWhole(file)}))
    unparsed = baseline
    return new PiecedBytes([baseline.bytes]).digest()
  }
  // Reads run one after another, each from the state the previous one left.
  let queue: Promise<unknown> = Promise.resolve()
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work)
    // The queue keeps nothing of a result alive (a read's set may hold every parsed document).
    queue = result.then(
      () => undefined,
      () => undefined,
    )
    return result
  }
  return {
    read: () => inTurn(readNow),
    // Each document dies young, in the nursery, instead of 430 MB of them living until the parse ends.
    index: () => inTurn(() => readNow(false)).then(() => undefined),
    fingerprint: () => inTurn(fingerprintNow),
    takeChanges() {
      const changes = [...touched.values()]
      touched.clear()
      return changes
    },
  }
}

/**
 * Fills `target` from the file at `position`, in as few reads as the kernel allows (`readFile`
 * reads 512 KiB at a time, one thread-pool round trip each). A file that ends sooner (it shrank
 * while being read) gives what it had: the caller's stat check reads it again.
 */
async function readExactly(handle: FileHandle, target: Buffer, position: number): Promise<Buffer> {
  let filled = 0
  while (filled < target.length) {
    const {bytesRead} = await handle.read(target, filled, target.length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return target.subarray(0, filled)
}

/**
 * The published documents of one state of the file. Lines are parsed when a query asks for them
 * (an edit's query asks for a few), each once per set; `parsed` is the whole file's documents when
 * the read that made the state has just parsed them. A set is for the evaluation that asked for it:
 * the next read that applies a change moves the lines it points into.
 */
function documentSetOfFile(path: string, state: FileState, parsed?: readonly SanityDocument[]): DocumentSet {
  if (parsed) return documentSetOf(parsed)
  // Once a query has asked for every document, the set is that of the parsed documents.
  let whole: DocumentSet | undefined
  const parsedById = new Map<string, SanityDocument>()
  // The lines were parsed when read: the same bytes parse again.
  const parse = (line: Line) => parseDocumentLine(lineBytes(state.bytes, line).toString('utf8'), path)
  const publishedLines = () => state.lines.filter((line) => line.identity !== undefined && isPublished(line.identity.id))
  const lineOf = (id: string) => {
    if (!state.index) {
      state.index = new Map()
      for (const line of publishedLines()) if (line.identity) state.index.set(line.identity.id, line)
    }
    return state.index.get(id)
  }
  return {
    all() {
      whole ??= documentSetOf(publishedLines().flatMap((line) => parse(line) ?? []))
      return whole.all()
    },
    get(id) {
      if (whole) return whole.get(id)
      if (!parsedById.has(id)) {
        const line = lineOf(id)
        const document = line && parse(line)
        if (document) parsedById.set(id, document)
      }
      return parsedById.get(id)
    },
    containing(text) {
      if (whole) return whole.containing(text)
      const needle = Buffer.from(text)
      return publishedLines().flatMap((line) => (lineBytes(state.bytes, line).includes(needle) ? (parse(line) ?? []) : []))
    },
  }
}

/** A line's bytes: a view when it lies in one piece, a copy when an edit split it across two. */
function lineBytes(bytes: PiecedBytes, line: Line): Buffer {
  const views = bytes.slice(line.start, line.end)
  return views.length === 1 && views[0] ? views[0] : Buffer.concat(views)
}
