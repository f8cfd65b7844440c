import type {TouchedDocument} from './source.ts'

// How a dataset file's new bytes differ from its old ones, as pure functions over buffers and line
// offsets: the common prefix and suffix, which lines they leave untouched, and which documents the
// lines in between touch. ndjson-file.ts reads the file and applies the result.

/** A line of the file: its bytes are `[start, end)`, `end` being its newline's offset (or the file's length). */
export interface LineSpan {
  start: number
  end: number
}

// Compared in blocks with Buffer#compare (memcmp), then byte by byte inside the first differing block.
const BLOCK = 64 * 1024

/** How many bytes `a` and `b` share at their start. */
export function commonPrefixLength(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length)
  let offset = 0
  while (offset + BLOCK <= limit && a.compare(b, offset, offset + BLOCK, offset, offset + BLOCK) === 0) offset += BLOCK
  while (offset < limit && a[offset] === b[offset]) offset++
  return offset
}

/** How many bytes `a` and `b` share at their end. */
export function commonSuffixLength(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length)
  let length = 0
  while (length + BLOCK <= limit && a.compare(b, b.length - length - BLOCK, b.length - length, a.length - length - BLOCK, a.length - length) === 0) length += BLOCK
  while (length < limit && a[a.length - length - 1] === b[b.length - length - 1]) length++
  return length
}

/**
 * The old lines an edit left as they were: `lines[0, kept)` lie, newline included, in the first
 * `prefix` bytes, and `lines[keptFromEnd, …)` in the last `suffix` bytes of the old file (`oldLength`).
 * The lines between were replaced.
 */
export function keptLines(lines: readonly LineSpan[], oldLength: number, prefix: number, suffix: number): {kept: number; keptFromEnd: number} {
  let kept = 0
  while (kept < lines.length && (lines[kept]?.end ?? Infinity) < prefix) kept++
  let keptFromEnd = lines.length
  while (keptFromEnd > kept && (lines[keptFromEnd - 1]?.start ?? 0) > oldLength - suffix) keptFromEnd--
  return {kept, keptFromEnd}
}

/** A replaced line: its text and the document it holds (undefined for a blank line). */
export interface LineText {
  text: string
  identity: TouchedDocument | undefined
}

/**
 * The documents whose lines changed when `before` was replaced by `after`: a line that only moved
 * touches nothing. A document both removed and added again is reported once, as added.
 */
export function touchedDocuments(before: readonly LineText[], after: readonly LineText[]): TouchedDocument[] {
  const beforeTexts = new Set(before.map((line) => line.text))
  const afterTexts = new Set(after.map((line) => line.text))
  const touched = new Map<string, TouchedDocument>()
  for (const {text, identity} of after) if (identity && !beforeTexts.has(text)) touched.set(identity.id, identity)
  for (const {text, identity} of before) if (identity && !afterTexts.has(text) && !touched.has(identity.id)) touched.set(identity.id, identity)
  return [...touched.values()]
}
