import {fstatSync, read, readSync, type Stats} from 'node:fs'
import {createHash, hash} from 'node:crypto'
import {promisify} from 'node:util'
import {documentSetOf, isPublished, type DocumentSet} from './document-set.ts'
import {parseDocumentLine, type SanityDocument} from './ndjson.ts'
import type {TouchedDocument} from './source.ts'

// One version of a dataset file as ndjson-file.ts holds it between reads: where each line is, a
// digest of each line and a checksum of each block, an index of the lines by id, and the set of
// documents read from that version through its open descriptor.

export interface Line {
  /** Where the line starts in its block; `length` leaves out its newline. */
  offset: number
  length: number
  /** The document's id and type; undefined for a blank line. */
  identity: TouchedDocument | undefined
  /** SHA-256 of the line's bytes: what the lines of a later version are compared with. */
  digest: string
}

/** Consecutive lines, newlines included. Every block starts where a line starts. */
export interface Block {
  start: number
  length: number
  /** CRC-32 of the byte before the block (a newline) and the block's bytes: see `unchangedRun`. */
  checksum: number
  lines: Line[]
}

/** One version of the file, read through `fd`, which stays open on that version while it is the current one. */
export interface FileState {
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

const readFile = promisify(read)

export const READ_CHUNK_BYTES = 4 << 20

// Which file (a rename puts another in its place, possibly with the same size and modification
// time: `cp -p`, tar, a write in the same clock tick) and which version of it.
export const stampOf = (stats: Stats) => `${stats.dev}:${stats.ino} ${stats.mtimeMs} ${stats.size}`

/**
 * Fills `target` from `fd` at `position`, in as few reads as the kernel allows (`readFile`
 * reads 512 KiB at a time, one thread-pool round trip each). A file that ends sooner (it shrank
 * while being read) gives what it had: the caller's stamp check reads it again.
 */
export async function readExactly(fd: number, target: Buffer, position: number): Promise<Buffer> {
  let filled = 0
  while (filled < target.length) {
    const {bytesRead} = await readFile(fd, target, filled, target.length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return target.subarray(0, filled)
}

/** SHA-256 of a state's bytes, read again through its descriptor a few megabytes at a time. */
export async function digestOf(state: FileState): Promise<string> {
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
export function indexAfter(index: IdIndex, replaced: readonly Block[], middle: readonly Block[]): IdIndex | undefined {
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
export function documentSetOfFile(path: string, state: FileState, parsed?: readonly SanityDocument[]): DocumentSet {
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
