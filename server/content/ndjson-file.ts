import {close, closeSync, fstat, open} from 'node:fs'
import {createHash, hash} from 'node:crypto'
import {crc32} from 'node:zlib'
import {promisify} from 'node:util'
import {setImmediate} from 'node:timers/promises'
import {
  digestOf,
  documentSetOfFile,
  indexAfter,
  READ_CHUNK_BYTES,
  readExactly,
  stampOf,
  type Block,
  type FileState,
  type Line,
} from './dataset-file-version.ts'
import type {DocumentSet} from './document-set.ts'
import {parseDocumentLine, type SanityDocument} from './ndjson.ts'
import {touchedDocuments} from './line-diff.ts'
import type {TouchedDocument} from './source.ts'

/**
 * A `sanity dataset export` file, read again whenever it changes. Only the lines of the blocks an
 * edit reached are parsed again (an edit or an append costs a read and a hash of the file, not a
 * parse of every document), and the documents they touch are remembered until `takeChanges` is
 * called.
 *
 * What is held between reads is where each document's line is, a digest of each line and a
 * checksum of each block of lines, not the file's bytes nor the parsed documents (several times
 * larger as JavaScript objects). A set that `read` returns reads and parses the lines a
 * query asks for from the version of the file it was made from, once per set.
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
  /** What is held of the file's last version read: its lines, and its blocks with their sizes in bytes. */
  held(): {lines: number; blocks: number[]}
}

/** How the file differs from a state: blocks `[kept, keptFromEnd)` were replaced by `middle`, moving the rest by `shift`. */
interface Comparison {
  file: OpenedFile
  kept: number
  keptFromEnd: number
  shift: number
  middle: Block[]
}

/** A whole file's bytes, read before they were parsed, and their digest when fingerprinted. */
interface Baseline {
  file: OpenedFile
  bytes: Buffer
  digest?: string
}

/** The file as one open descriptor saw it: every read of one version goes through one descriptor. */
interface OpenedFile {
  fd: number
  size: number
  stamp: string
}

const openFile = promisify(open)
const closeFile = promisify(close)
const statFile = promisify(fstat)

const NEWLINE = 0x0a
const BEFORE_FIRST_LINE = Buffer.from('\n')
const PARSE_SLICE_BYTES = 1 << 20
// What one block checksum covers: an edit parses the blocks it reached again, so a few of these.
const BLOCK_BYTES = 256 << 10
const READ_ATTEMPTS = 3

const blockEnd = (block: Block) => block.start + block.length
/** A block's checksum: of the byte before it (a newline where it starts a line) and its bytes. */
const blockChecksum = (before: Buffer, bytes: Buffer) => crc32(bytes, crc32(before))
const endsWithNewline = (block: Block) => {
  const last = block.lines.at(-1)
  return last === undefined || last.offset + last.length < block.length
}

// A state that is dropped without being replaced (a dataset file nobody reads any more) closes its descriptor.
const descriptors = new FinalizationRegistry<number>((fd) => closeSync(fd))

export function openDatasetFile(path: string): DatasetFile {
  let state: FileState | undefined
  const touched = new Map<string, TouchedDocument>()

  /**
   * The lines of `bytes` (whose first byte is at `base` in the file and starts line
   * `firstLineNumber`), grouped into blocks. Every line is parsed, so a broken one is reported now;
   * its document goes to `parsed` when given, and is otherwise dropped.
   */
  const blocksOf = (bytes: Buffer, base: number, firstLineNumber: number, parsed?: SanityDocument[]): Block[] => {
    // Cut into blocks of one size, as near BLOCK_BYTES as whole lines allow: the k-th block ends at
    // the line whose middle passes k sizes. Never a sliver, which edits in one place would pile up.
    const count = Math.max(1, Math.round(bytes.length / BLOCK_BYTES))
    const size = bytes.length / count
    const blocks: Block[] = []
    let lines: Line[] = []
    let blockStart = 0
    const close = (end: number) => {
      blocks.push({
        start: base + blockStart,
        length: end - blockStart,
        checksum: blockChecksum(BEFORE_FIRST_LINE, bytes.subarray(blockStart, end)),
        lines,
      })
      blockStart = end
      lines = []
    }
    let lineNumber = firstLineNumber
    for (let start = 0; start < bytes.length;) {
      const newline = bytes.indexOf(NEWLINE, start)
      const end = newline === -1 ? bytes.length : newline
      const text = bytes.subarray(start, end)
      const document = parseDocumentLine(text.toString('utf8'), `${path}:${lineNumber++}`)
      if (document) parsed?.push(document)
      lines.push({
        offset: start - blockStart,
        length: end - start,
        identity: document && {id: document._id, type: document._type},
        digest: hash('sha256', text, 'base64'),
      })
      const next = Math.min(end + 1, bytes.length)
      if (blocks.length < count - 1 && (start + next) / 2 >= (blocks.length + 1) * size) close(next)
      start = end + 1
    }
    if (lines.length > 0) close(bytes.length)
    return blocks
  }
  // A whole file, or a change that rewrote most of it, is parsed a
  // megabyte of lines at a time with the event loop turning in between, so a server that is
  // already answering keeps answering.
  const slicedBlocksOf = async (
    bytes: Buffer,
    base: number,
    firstLineNumber: number,
    parsed?: SanityDocument[],
  ): Promise<Block[]> => {
    const blocks: Block[] = []
    let lines = 0
    for (let from = 0; from < bytes.length;) {
      // The last slice takes in a remainder under half a slice, which would make a small block.
      const cut = from + PARSE_SLICE_BYTES
      const newline = bytes.length - cut < PARSE_SLICE_BYTES / 2 ? -1 : bytes.indexOf(NEWLINE, cut)
      const to = newline === -1 ? bytes.length : newline + 1
      for (const block of blocksOf(bytes.subarray(from, to), base + from, firstLineNumber + lines, parsed)) {
        blocks.push(block)
        lines += block.lines.length
      }
      from = to
      await setImmediate()
    }
    return blocks
  }

  /**
   * How many of `blocks`, taken in the order given, are still in `file` at their start plus `shift`
   * (and `eligible` there). A block's checksum covers the byte before it (the newline a line
   * starts after, or none at the file's start), so a block only matches where it still starts a
   * line. This reads and checksums the whole file on every change, a few megabytes at a time, so
   * the checksum is CRC-32, much cheaper than SHA-256, to keep an edit fast. A change a CRC-32 misses (one in 2^32) is found when one of its lines is read
   * (lines are checked against their SHA-256), and the next read then compares every line.
   * `buffer` is where the blocks are read, grown as needed.
   */
  const unchangedRun = async (
    {file, buffer}: {file: OpenedFile; buffer: {bytes: Buffer}},
    {blocks, shift, eligible}: {blocks: readonly Block[]; shift: number; eligible: (block: Block) => boolean},
  ): Promise<number> => {
    let run = 0
    while (run < blocks.length) {
      const batch: Block[] = []
      let span = 0
      for (const block of blocks.slice(run)) {
        if (!eligible(block) || (batch.length > 0 && span + block.length > READ_CHUNK_BYTES)) break
        batch.push(block)
        span += block.length
      }
      if (batch.length === 0) return run
      const from = Math.max(0, Math.min(...batch.map((block) => block.start + shift)) - 1)
      const to = Math.max(...batch.map((block) => blockEnd(block) + shift))
      if (buffer.bytes.length < to - from) buffer.bytes = Buffer.allocUnsafe(Math.max(to - from, READ_CHUNK_BYTES))
      const bytes = await readExactly(file.fd, buffer.bytes.subarray(0, to - from), from)
      for (const block of batch) {
        const start = block.start + shift - from
        const before = block.start + shift === 0 ? BEFORE_FIRST_LINE : bytes.subarray(start - 1, start)
        if (blockChecksum(before, bytes.subarray(start, start + block.length)) !== block.checksum) return run
        run++
      }
    }
    return run
  }

  /** What changed between `previous` and the file: read and parsed, nothing applied yet. */
  const compare = async (previous: FileState, file: OpenedFile): Promise<Comparison> => {
    const {blocks} = previous
    const shift = file.size - previous.size
    // One buffer for this comparison's reads, not held after it.
    const reading = {file, buffer: {bytes: Buffer.alloc(0)}}
    // Blocks still where they were at the start of the file. A last line without a newline is
    // kept only if the file still ends there: anything added after it starts on that line.
    let kept = previous.suspect
      ? 0
      : await unchangedRun(reading, {
          blocks,
          shift: 0,
          eligible: (block) =>
            blockEnd(block) <= file.size && (endsWithNewline(block) || blockEnd(block) === file.size),
        })
    const prefixEnd = (kept: number) => {
      const last = blocks[kept - 1]
      return last ? blockEnd(last) : 0
    }
    // Then blocks still where they were counted from its end (moved by `shift`), never overlapping those.
    const suffixRun = previous.suspect
      ? 0
      : await unchangedRun(reading, {
          blocks: blocks.slice(kept).reverse(),
          shift,
          eligible: (block) => block.start + shift >= prefixEnd(kept),
        })
    let keptFromEnd = blocks.length - suffixRun
    const suffixStart = (keptFromEnd: number) => {
      const first = blocks[keptFromEnd]
      return first ? first.start + shift : file.size
    }
    // What is parsed again is whole blocks; less than half a block (but not nothing) takes in a
    // neighbour, so blocks keep their size however many edits fall in one place.
    const span = suffixStart(keptFromEnd) - prefixEnd(kept)
    if (span > 0 && span < BLOCK_BYTES / 2) {
      if (keptFromEnd < blocks.length) keptFromEnd++
      else if (kept > 0) kept--
    }
    const middleStart = prefixEnd(kept)
    const middleEnd = suffixStart(keptFromEnd)
    const firstLineNumber = blocks.slice(0, kept).reduce((count, block) => count + block.lines.length, 1)
    const bytes = await readExactly(file.fd, Buffer.allocUnsafe(Math.max(0, middleEnd - middleStart)), middleStart)
    return {file, kept, keptFromEnd, shift, middle: await slicedBlocksOf(bytes, middleStart, firstLineNumber)}
  }

  /** The state after `comparison`; records the documents it touched. */
  const apply = (previous: FileState, comparison: Comparison): FileState => {
    const {file, kept, keptFromEnd, shift, middle} = comparison
    const contentOf = (blocks: Block[]) => blocks.flatMap((block) => block.lines)
    const replaced = previous.blocks.slice(kept, keptFromEnd)
    for (const identity of touchedDocuments(contentOf(replaced), contentOf(middle))) touched.set(identity.id, identity)
    // The previous state is dropped once this one exists, so its blocks after the change are moved
    // and its index follows the change in place: an edit costs its own lines, not the file's.
    const after = previous.blocks.slice(keptFromEnd)
    for (const block of after) block.start += shift
    const index = previous.index?.unique ? indexAfter(previous.index, replaced, middle) : undefined
    return adopt({...file, blocks: previous.blocks.slice(0, kept).concat(middle, after), index})
  }

  /** Makes `next` the current state, closing the descriptor of the one it replaces. */
  const adopt = (next: FileState): FileState => {
    if (state) {
      descriptors.unregister(state)
      closeSync(state.fd)
    }
    descriptors.register(next, next.fd, next)
    state = next
    return next
  }

  /**
   * Runs `work` on the file as one open descriptor sees it, and returns that file still open for
   * the caller to keep or close. A file replaced by a rename is read whole through the old
   * descriptor; one rewritten in place while being read (its size or modification time moved) is
   * read again, and refused after READ_ATTEMPTS such reads. `work` must change nothing: its result
   * is dropped when the file moved under it.
   */
  const withFile = async <T>(work: (file: OpenedFile) => Promise<T>): Promise<{result: T; file: OpenedFile}> => {
    for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
      const fd = await openFile(path, 'r')
      let keep = false
      try {
        const before = await statFile(fd)
        const file = {fd, size: before.size, stamp: stampOf(before)}
        // A line cut short by a writer still rewriting the file is read again, not reported broken.
        const outcome = await work(file).then(
          (result) => ({result}),
          (error: unknown) => ({error}),
        )
        const moved = stampOf(await statFile(fd)) !== file.stamp
        if ('error' in outcome && !moved) throw outcome.error
        keep = 'result' in outcome && !moved
        if ('result' in outcome && keep) return {result: outcome.result, file}
      } finally {
        if (!keep) await closeFile(fd)
      }
    }
    throw new Error(
      `${path} kept changing while it was read (${READ_ATTEMPTS} times); it will be read again on its next change`,
    )
  }
  const readWhole = (file: OpenedFile) => readExactly(file.fd, Buffer.allocUnsafe(file.size), 0)

  // Bytes fingerprinted before anything was parsed, and the descriptor they were read through:
  // the first read parses them, then compares.
  let unparsed: (Baseline & {digest: string}) | undefined

  /** The first state: the whole file parsed, its documents into `parsed` when given. */
  const parseWhole = async (parsed: SanityDocument[] | undefined): Promise<FileState> => {
    const baseline: Baseline = unparsed ?? (await withFile(readWhole).then(({result, file}) => ({file, bytes: result})))
    try {
      const first = adopt({
        ...baseline.file,
        blocks: await slicedBlocksOf(baseline.bytes, 0, 1, parsed),
        digest: baseline.digest,
      })
      unparsed = undefined
      return first
    } catch (error) {
      // Bytes that do not parse are not kept: the next read reads the file again.
      await closeFile(baseline.file.fd)
      unparsed = undefined
      throw error
    }
  }

  /** The state the file is in now, with the documents of the whole parse when this read made the first state. */
  const readNow = async (keepParsed: boolean): Promise<{current: FileState; parsed?: SanityDocument[]}> => {
    // The documents of a first, whole parse go to the set this read returns (a cold start's full
    // query uses them); they are not kept after it.
    const parsed = !state && keepParsed ? [] : undefined
    const current = state ?? (await parseWhole(parsed))
    const {result: comparison, file} = await withFile(async (file) =>
      file.stamp === current.stamp && !current.suspect ? undefined : compare(current, file),
    )
    if (comparison) return {current: apply(current, comparison)}
    await closeFile(file.fd)
    return {current, parsed}
  }

  const fingerprintNow = async (): Promise<string> => {
    // Once parsed, the file is fingerprinted as the next read leaves it (changes reported as usual).
    if (state) {
      const {current} = await readNow(false)
      current.digest ??= await digestOf(current)
      return current.digest
    }
    const previous = unparsed
    const {result: bytes, file} = await withFile(async (file) =>
      previous?.file.stamp === file.stamp ? previous.bytes : readWhole(file),
    )
    if (previous && bytes === previous.bytes) {
      await closeFile(file.fd)
      return previous.digest
    }
    if (previous) await closeFile(previous.file.fd)
    const digest = createHash('sha256').update(bytes).digest('hex')
    unparsed = {file, bytes, digest}
    return digest
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
    read: () => inTurn(() => readNow(true)).then(({current, parsed}) => documentSetOfFile(path, current, parsed)),
    // Each document dies young, in the nursery, instead of all of them living until the parse ends.
    index: () => inTurn(() => readNow(false)).then(() => undefined),
    fingerprint: () => inTurn(fingerprintNow),
    held: () => ({
      lines: state?.blocks.reduce((count, block) => count + block.lines.length, 0) ?? 0,
      blocks: state?.blocks.map((block) => block.length) ?? [],
    }),
    takeChanges() {
      const changes = [...touched.values()]
      touched.clear()
      return changes
    },
  }
}
