import {close, closeSync, fstat, fstatSync, open, read, readSync, type Stats} from 'node:fs'
import {createHash, hash} from 'node:crypto'
import {crc32} from 'node:zlib'
import {promisify} from 'node:util'
import {setImmediate} from 'node:timers/promises'
import {documentSetOf, isPublished, type DocumentSet} from './document-set.ts'
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

interface Line {
  /** Where the line starts in its block; `length` leaves out its newline. */
  offset: number
  length: number
  /** The document's id and type; undefined for a blank line. */
  identity: TouchedDocument | undefined
  /** SHA-256 of the line's bytes: what the lines of a later version are compared with. */
  digest: string
}

/** Consecutive lines, newlines included. Every block starts where a line starts. */
interface Block {
  start: number
  length: number
  /** CRC-32 of the byte before the block (a newline) and the block's bytes: see `unchangedRun`. */
  checksum: number
  lines: Line[]
}

/** One version of the file, read through `fd`, which stays open on that version while it is the current one. */
interface FileState {
  fd: number
  stamp: string
  size: number
  blocks: Block[]
  /** The line of each published document by id, made when first asked for, then carried from state to state. */
  index?: IdIndex
  digest?: string
  /** A line read did not match its digest (a block changed without its checksum changing): the next read compares every line. */
  suspect?: boolean
}

interface IdIndex {
  lines: Map<string, {block: Block; line: Line}>
  /** No id is on two published lines: an edit can then update the index rather than drop it. */
  unique: boolean
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
const readFile = promisify(read)

const NEWLINE = 0x0a
const BEFORE_FIRST_LINE = Buffer.from('\n')
const PARSE_SLICE_BYTES = 1 << 20
// What one block checksum covers: an edit parses the blocks it reached again, so a few of these.
const BLOCK_BYTES = 256 << 10
const READ_CHUNK_BYTES = 4 << 20
const READ_ATTEMPTS = 3

// Which file (a rename puts another in its place, possibly with the same size and modification
// time: `cp -p`, tar, a write in the same clock tick) and which version of it.
const stampOf = (stats: Stats) => `${stats.dev}:${stats.ino} ${stats.mtimeMs} ${stats.size}`
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

/**
 * Fills `target` from `fd` at `position`, in as few reads as the kernel allows (`readFile`
 * reads 512 KiB at a time, one thread-pool round trip each). A file that ends sooner (it shrank
 * while being read) gives what it had: the caller's stamp check reads it again.
 */
async function readExactly(fd: number, target: Buffer, position: number): Promise<Buffer> {
  let filled = 0
  while (filled < target.length) {
    const {bytesRead} = await readFile(fd, target, filled, target.length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return target.subarray(0, filled)
}

/** SHA-256 of a state's bytes, read again through its descriptor a few megabytes at a time. */
async function digestOf(state: FileState): Promise<string> {
  const digest = createHash('sha256')
  const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES)
  for (let position = 0; position < state.size; position += READ_CHUNK_BYTES) {
    digest.update(
      await readExactly(state.fd, chunk.subarray(0, Math.min(READ_CHUNK_BYTES, state.size - position)), position),
    )
  }
  assertUnchanged(state)
  return digest.digest('hex')
}

/**
 * A read through a state's descriptor sees that version of the file unless the file was rewritten
 * in place since (a rename leaves the descriptor on the old version); then it throws rather than
 * give another version's bytes, and the change's own read will follow.
 */
function assertUnchanged(state: FileState): void {
  if (stampOf(fstatSync(state.fd)) !== state.stamp)
    throw new Error('the dataset file was rewritten while it was read; it will be read again')
}

/** Where each published document's line is; the last line wins where an id is on two. */
function indexOf(blocks: readonly Block[]): IdIndex {
  const index: IdIndex = {lines: new Map(), unique: true}
  for (const block of blocks) {
    for (const line of block.lines) {
      if (!line.identity || !isPublished(line.identity.id)) continue
      if (index.lines.has(line.identity.id)) index.unique = false
      index.lines.set(line.identity.id, {block, line})
    }
  }
  return index
}

/** `index` (unique) with the lines of `replaced` blocks out and those of `middle` in; undefined when that would put an id on two lines. */
function indexAfter(index: IdIndex, replaced: readonly Block[], middle: readonly Block[]): IdIndex | undefined {
  for (const block of replaced) for (const line of block.lines) if (line.identity) index.lines.delete(line.identity.id)
  for (const block of middle) {
    for (const line of block.lines) {
      if (!line.identity || !isPublished(line.identity.id)) continue
      if (index.lines.has(line.identity.id)) return undefined
      index.lines.set(line.identity.id, {block, line})
    }
  }
  return index
}

/**
 * The published documents of one state of the file. Lines are read and parsed when a query asks
 * for them (an edit's query asks for a few), each once per set; `parsed` is the whole file's
 * documents when the read that made the state has just parsed them. A set is for the evaluation
 * that asked for it: it reads through the state's descriptor, which the next change closes.
 */
function documentSetOfFile(path: string, state: FileState, parsed?: readonly SanityDocument[]): DocumentSet {
  if (parsed) return documentSetOf(parsed)
  // Once a query has asked for every document, the set is that of the parsed documents.
  let whole: DocumentSet | undefined
  const parsedById = new Map<string, SanityDocument>()
  // Blocks are read into one buffer, grown when a block is longer: a parse copies what it keeps.
  let buffer = Buffer.alloc(0)
  const bytesOf = (start: number, length: number) => {
    if (buffer.length < length) buffer = Buffer.allocUnsafe(length)
    return buffer.subarray(0, readSync(state.fd, buffer, 0, length, start))
  }
  // A line is what was read there unless the file was rewritten in place since, or a change got
  // past its block's checksum; either is refused, and the second makes the next read compare every line.
  const parse = (line: Line, bytes: Buffer) => {
    if (hash('sha256', bytes, 'base64') !== line.digest) {
      assertUnchanged(state)
      state.suspect = true
      throw new Error(
        `${path}: a line is not what was read there (a change its block's checksum missed); the next read compares every line`,
      )
    }
    return parseDocumentLine(bytes.toString('utf8'), path)
  }
  /** The published documents of every block, or of the blocks whose bytes hold `needle`. */
  const scan = (needle?: Buffer): SanityDocument[] => {
    const documents: SanityDocument[] = []
    for (const block of state.blocks) {
      const bytes = bytesOf(block.start, block.length)
      if (needle && !bytes.includes(needle)) continue
      for (const line of block.lines) {
        const {offset, length, identity} = line
        const end = offset + length
        if (!identity || !isPublished(identity.id) || (needle && !bytes.subarray(offset, end).includes(needle)))
          continue
        const document = parse(line, bytes.subarray(offset, end))
        if (document) documents.push(document)
      }
    }
    assertUnchanged(state)
    return documents
  }
  const lineOf = (id: string) => {
    state.index ??= indexOf(state.blocks)
    return state.index.lines.get(id)
  }
  return {
    all() {
      whole ??= documentSetOf(scan())
      return whole.all()
    },
    get(id) {
      if (whole) return whole.get(id)
      if (!parsedById.has(id)) {
        const found = lineOf(id)
        if (!found) return undefined
        const {block, line} = found
        const document = parse(line, bytesOf(block.start + line.offset, line.length))
        if (document) parsedById.set(id, document)
      }
      return parsedById.get(id)
    },
    containing(text) {
      return whole ? whole.containing(text) : scan(Buffer.from(text))
    },
  }
}
