import {mkdtemp, rename, rm, stat, utimes, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createHash} from 'node:crypto'
import {crc32} from 'node:zlib'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {openDatasetFile} from '../../server/content/ndjson-file.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {collectGarbage} from '../helpers/gc.ts'

let folder: string
let file: string
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'dataset-file-'))
  file = join(folder, 'catalog.ndjson')
})
afterEach(() => rm(folder, {recursive: true, force: true}))

// Hundreds of rewrites and reads of a file: seconds on a quiet machine, over a minute on a loaded one.
// They test what is read, not how fast, so they get room.
const WORK_NOT_TIME_MS = 300_000
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const line = (id: string, title: string, type = 'episode') => JSON.stringify({_id: id, _type: type, title})

/** `count` documents doc-0, doc-1, … whose Hebrew titles carry `padding` more letters (two bytes each). */
function numberedLines(count: number, padding: number): string[] {
  return Array.from({length: count}, (_, index) => line(`doc-${index}`, `כותרת ${index} ${'ש'.repeat(padding)}`))
}

/** The documents on these lines with a new title (blank lines stay blank). */
function retitled(lines: string[], indexes: number[], title: string): string[] {
  return lines.map((text, index) => {
    if (!indexes.includes(index) || text === '') return text
    const {_id: id} = JSON.parse(text)
    return line(id, title)
  })
}

/** Ids whose line differs between two versions of the file (added, removed or changed). */
function changedIds(before: string, after: string): string[] {
  const byId = (text: string) =>
    new Map(parseNdjson(text, 'x').map((document) => [document._id, JSON.stringify(document)]))
  const [a, b] = [byId(before), byId(after)]
  return [...new Set([...a.keys(), ...b.keys()])].filter((id) => a.get(id) !== b.get(id)).sort()
}

/** Ids on more than one line of either version of the file. */
function idsOnTwoLines(...versions: string[]): string[] {
  return versions.flatMap((version) => {
    const ids = parseNdjson(version, 'x').map((document) => document._id)
    return ids.filter((id, index) => ids.indexOf(id) !== index)
  })
}

describe('dataset file', () => {
  it('compares a file larger than one read chunk (4 MB) at either end and in the middle', async () => {
    let lines = numberedLines(20_000, 100)
    let text = `${lines.join('\n')}\n`
    expect(Buffer.byteLength(text)).toBeGreaterThan(5 * 2 ** 20)
    await writeFile(file, text)
    const dataset = openDatasetFile(file)
    await dataset.read()
    const edits: ((lines: string[]) => string[])[] = [
      (all) => retitled(all, [0], 'בהתחלה'),
      (all) => retitled(all, [all.length - 1], 'בסוף'),
      (all) => retitled(all, [15_500, 15_501], 'אחרי הגוש הראשון'), // past the first 4 MB
      (all) => all.filter((_, index) => index !== 15_000),
      (all) => [...all.slice(0, 100), line('inserted', 'חדש'), ...all.slice(100)],
      (all) => retitled(all, [1, all.length - 2], 'שני הקצוות'),
    ]
    for (const [round, edit] of edits.entries()) {
      lines = edit(lines)
      const next = `${lines.join('\n')}\n`
      await writeFile(file, next)
      expect((await dataset.read()).all(), `edit ${round}`).toEqual(parseNdjson(next, 'x'))
      expect(
        dataset
          .takeChanges()
          .map((document) => document.id)
          .sort(),
        `edit ${round}`,
      ).toEqual(changedIds(text, next))
      expect(await dataset.fingerprint(), `edit ${round}`).toBe(sha256(next))
      text = next
    }
  })

  it('parses a file of several megabytes, read in slices, as one full parse does, blank lines and a last line without a newline included', async () => {
    const lines = Array.from({length: 12_000}, (_, index) =>
      index % 997 === 0 ? '' : line(`doc-${index}`, `כותרת ${index} ${'א'.repeat(index % 300)}`),
    )
    const text = lines.join('\n')
    expect(Buffer.byteLength(text)).toBeGreaterThan(3 * 2 ** 20)
    await writeFile(file, text)
    const read = (await openDatasetFile(file).read()).all()
    expect(read).toEqual(parseNdjson(text, 'x'))
    expect(read).toHaveLength(lines.filter((text) => text !== '').length)
  })

  // The small file is one block of lines; the large one is several (256 KiB each), so edits land
  // inside a block, across the boundary between two, at either end, and move lines between them.
  it.each([
    {size: 'a small file', count: 40, padding: 0, rounds: 150},
    {size: 'a file of several blocks', count: 3_000, padding: 300, rounds: 60},
  ])(
    'reads the same documents as a full parse after any edit of $size, and reports exactly the documents that changed',
    async ({count, padding, rounds}) => {
      // A seeded generator: the same edits on every run.
      let seed = 7
      const random = (below: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31
        return seed % below
      }
      let lines = numberedLines(count, padding)
      let text = `${lines.join('\n')}\n`
      await writeFile(file, text)
      const dataset = openDatasetFile(file)
      expect((await dataset.read()).all().map((document) => document._id)).toEqual(
        lines.map((_, index) => `doc-${index}`),
      )
      expect(dataset.takeChanges()).toEqual([])

      for (let round = 0; round < rounds; round++) {
        const edit = random(10)
        const at = random(lines.length + 1)
        // A run of lines a tenth of the file long (a block's worth in the large file) removed, or added.
        const run = Math.max(2, Math.floor(count / 10))
        if (edit === 0) lines.splice(at, 0, line(`new-${round}`, `חדש ${round}`))
        else if (edit === 1) lines.splice(at, 1)
        else if (edit === 2) lines = retitled(lines, [at], `עריכה ${round}`)
        else if (edit === 3) lines.push(line(`appended-${round}`, 'בסוף'))
        else if (edit === 4) lines.splice(at, 0, '')
        else if (edit === 5)
          lines.splice(random(lines.length + 1), 0, ...lines.splice(at, 1)) // a line moved
        else if (edit === 6) lines = retitled(lines, [at, lines.length - 1 - at], `שני קצוות ${round}`)
        else if (edit === 7) lines.splice(at, run)
        else if (edit === 8)
          lines.splice(random(lines.length + 1), 0, lines[at] ?? '') // an id on two lines
        else
          lines.splice(
            at,
            0,
            ...Array.from({length: run}, (_, index) =>
              line(`run-${round}-${index}`, `רצף ${index} ${'ר'.repeat(padding)}`),
            ),
          )
        const trailingNewline = random(4) !== 0
        const next = `${lines.join('\n')}${trailingNewline ? '\n' : ''}`
        await writeFile(file, next)
        const documents = await dataset.read()
        expect(documents.all(), `round ${round}`).toEqual(parseNdjson(next, 'x'))
        // A set read after an edit parses lines on demand: documents by id (the last line wins where
        // an id is on two), or the holders of a text. Asked of the ids the edit touched, the last
        // line's and a random line's.
        const expected = parseNdjson(next, 'x')
        const lazily = await dataset.read()
        const someId = (text: string | undefined) => (text ? [JSON.parse(text)._id] : [])
        for (const id of new Set([
          ...changedIds(text, next),
          ...someId(lines.findLast((text) => text !== '')),
          ...someId(lines[random(lines.length)]),
        ])) {
          expect(lazily.get(id), `round ${round}, ${id}`).toEqual(expected.findLast((document) => document._id === id))
          expect(lazily.containing(JSON.stringify(id)), `round ${round}, ${id}`).toEqual(
            expected.filter((document) => document._id === id),
          )
        }
        // Every changed document is reported; a line added or removed where its id is on another
        // line too may be reported though the document read is the same.
        const reported = dataset.takeChanges().map((document) => document.id)
        const changed = changedIds(text, next)
        expect(
          reported.filter((id) => !changed.includes(id) && !idsOnTwoLines(text, next).includes(id)),
          `round ${round}`,
        ).toEqual([])
        expect(
          changed.filter((id) => !reported.includes(id)),
          `round ${round}`,
        ).toEqual([])
        // What the next edit is compared with is the file, byte for byte.
        expect(await dataset.fingerprint(), `round ${round}`).toBe(sha256(next))
        text = next
      }
    },
    WORK_NOT_TIME_MS,
  )

  it('holds no parsed documents between reads: a set parses the line asked for, published documents only', async () => {
    const draft = JSON.stringify({_id: 'drafts.b', _type: 'episode', title: 'טיוטה', guests: [{_ref: 'dana'}]})
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}\n${draft}\n${line('c', 'ג')}\n`)
    const dataset = openDatasetFile(file)
    await dataset.read()
    await writeFile(
      file,
      `${line('a', 'א')}\n${line('b', 'בית')}\n${draft}\n${JSON.stringify({_id: 'c', _type: 'episode', guests: [{_ref: 'dana'}]})}\n`,
    )
    const after = await dataset.read()
    expect(dataset.takeChanges()).toEqual([
      {id: 'b', type: 'episode'},
      {id: 'c', type: 'episode'},
    ])
    expect(after.get('b')?.title).toBe('בית')
    expect(after.get('a')).toEqual({_id: 'a', _type: 'episode', title: 'א'})
    expect(after.get('drafts.b')).toBeUndefined()
    expect(after.get('nobody')).toBeUndefined()
    // The draft also holds "dana", and is not published.
    expect(after.containing('"dana"').map((document) => document._id)).toEqual(['c'])
    expect(after.containing('"dan"')).toEqual([])
    expect(after.all().map((document) => document._id)).toEqual(['a', 'b', 'c'])
  })

  it('counts lines on after a last line that had no newline', async () => {
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}`)
    const dataset = openDatasetFile(file)
    await dataset.read()
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}\n{oops\n`)
    await expect(dataset.read()).rejects.toThrow(`${file}:3: not valid JSON`)
  })

  it('refuses two documents joined on one line where one block of lines meets the next', async () => {
    // Blocks are 256 KiB of lines: joining the lines around that offset joins two blocks.
    const lines = Array.from({length: 1_500}, (_, index) =>
      line(`doc-${index}`, `כותרת ${String(index).padStart(4, '0')} ${'ש'.repeat(200)}`),
    )
    const text = `${lines.join('\n')}\n`
    const lineBytes = Buffer.byteLength(lines[0] ?? '') + 1
    await writeFile(file, text)
    const dataset = openDatasetFile(file)
    await dataset.read()
    const boundary = Math.ceil((256 * 1024) / lineBytes)
    for (let joined = boundary - 3; joined <= boundary + 3; joined++) {
      const broken = lines.slice(0, joined).join('\n') + ' ' + lines.slice(joined).join('\n') + '\n'
      await writeFile(file, broken)
      await expect(dataset.read(), `lines ${joined} and ${joined + 1}`).rejects.toThrow(
        `${file}:${joined}: not valid JSON`,
      )
      await writeFile(file, text)
      expect((await dataset.read()).all()).toHaveLength(lines.length)
    }
  })

  it("holds neither the file's bytes nor its documents between reads, only where its lines are", async () => {
    const lines = numberedLines(16_000, 600)
    const text = `${lines.join('\n')}\n`
    await writeFile(file, text)
    await collectGarbage()
    const before = process.memoryUsage()
    const dataset = openDatasetFile(file)
    await dataset.index()
    await writeFile(file, retitled(lines, [8_000], 'נערך').join('\n') + '\n')
    expect((await dataset.read()).get('doc-8000')?.title).toBe('נערך')
    await collectGarbage()
    const after = process.memoryUsage()
    // 20 MB of file, 1.3 KB of heap per parsed document; what a line costs held (its offsets,
    // id, type, digest and place in the id index) measured 290 bytes.
    expect(Buffer.byteLength(text)).toBeGreaterThan(20e6)
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(1e6)
    expect(after.heapUsed - before.heapUsed).toBeLessThan(lines.length * 400)
    expect(dataset.takeChanges()).toEqual([{id: 'doc-8000', type: 'episode'}])
  })

  it('reads a set from the version it was made from: a file replaced by a rename is still that version, one rewritten in place is refused', async () => {
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}\n`)
    const dataset = openDatasetFile(file)
    await dataset.index()
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'בית')}\n`)
    const set = await dataset.read()
    const replacement = join(folder, 'replacement.ndjson')
    await writeFile(replacement, `${line('a', 'אחר')}\n${line('b', 'אחרת')}\n`)
    await rename(replacement, file)
    expect(set.get('b')?.title).toBe('בית')
    expect(set.containing('"a"').map((document) => document.title)).toEqual(['א'])

    const next = await dataset.read()
    await writeFile(file, `${line('a', 'שונה')}\n${line('b', 'שונה')}\n`)
    expect(() => next.get('a')).toThrow('rewritten while it was read')
    expect(() => next.all()).toThrow('rewritten while it was read')
    expect((await dataset.read()).get('a')?.title).toBe('שונה')
  })

  it('reads a file renamed over it with the same size and modification time (cp -p, tar, one clock tick)', async () => {
    // A whole second: the same modification time to the nanosecond.
    const time = 1_700_000_000
    await writeFile(file, `${line('a', 'פרק 12')}\n`)
    await utimes(file, time, time)
    const dataset = openDatasetFile(file)
    await dataset.index()
    const replacement = join(folder, 'replacement.ndjson')
    await writeFile(replacement, `${line('a', 'פרק 13')}\n`)
    await utimes(replacement, time, time)
    expect((await stat(replacement)).mtimeMs).toBe((await stat(file)).mtimeMs)
    await rename(replacement, file)
    expect((await dataset.read()).get('a')?.title).toBe('פרק 13')
    expect(dataset.takeChanges()).toEqual([{id: 'a', type: 'episode'}])
  })

  it(
    'keeps its blocks near 256 KiB however many edits fall in one place',
    async () => {
      const lines = numberedLines(6_000, 150)
      await writeFile(file, `${lines.join('\n')}\n`)
      const dataset = openDatasetFile(file)
      await dataset.index()
      // Lines added, grown, shrunk and removed, all around the same line.
      for (let round = 0; round < 120; round++) {
        if (round % 3 === 0) lines.splice(3_000, 0, line(`new-${round}`, 'ח'.repeat(round % 7)))
        else if (round % 3 === 1) lines[3_001] = line('doc-3001', 'ע'.repeat(round * 3))
        else lines.splice(2_999, 1)
        // Now and then a run of lines goes, leaving less than half a block where it was.
        if (round % 20 === 19) lines.splice(2_900, 500)
        await writeFile(file, `${lines.join('\n')}\n`)
        await dataset.read()
      }
      const {lines: count, blocks} = dataset.held()
      expect(count).toBe(lines.length)
      const bytes = blocks.reduce((total, size) => total + size, 0)
      expect(bytes).toBe(Buffer.byteLength(`${lines.join('\n')}\n`))
      // Half a block to one and a half, give or take a line.
      expect(Math.min(...blocks)).toBeGreaterThan(120 * 1024)
      expect(Math.max(...blocks)).toBeLessThan(390 * 1024)
      expect(blocks.length).toBeLessThanOrEqual(Math.ceil(bytes / (128 * 1024)))
    },
    WORK_NOT_TIME_MS,
  )

  it('keeps the event loop turning while it parses a file rewritten whole, a megabyte at a time', async () => {
    const lines = numberedLines(40_000, 100)
    await writeFile(file, `${lines.join('\n')}\n`)
    const dataset = openDatasetFile(file)
    await dataset.index()
    const rewritten = `${lines.join('\n')}\n`.replaceAll('כותרת', 'שם')
    expect(Buffer.byteLength(rewritten)).toBeGreaterThan(8 * 2 ** 20)
    await writeFile(file, rewritten)
    // The longest the loop waited for a turn, against the whole read: parsed at once, the 10 MB
    // would be one wait of most of it; a megabyte at a time, about a tenth.
    let reading = true
    let last = performance.now()
    let longest = 0
    const turn = () => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
      if (reading) setImmediate(turn)
    }
    const started = performance.now()
    setImmediate(turn)
    await dataset.read()
    reading = false
    expect(longest).toBeLessThan((performance.now() - started) / 3)
    expect(dataset.takeChanges()).toHaveLength(lines.length)
  })

  it('names the line of a broken document and keeps its last good read', async () => {
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}\n`)
    const dataset = openDatasetFile(file)
    const before = (await dataset.read()).all()
    await writeFile(file, `${line('a', 'א')}\n{oops\n`)
    await expect(dataset.read()).rejects.toThrow(`${file}:2: not valid JSON`)
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}\n${line('c', 'ג')}\n`)
    const after = (await dataset.read()).all()
    expect(after.slice(0, 2)).toEqual(before)
    expect(dataset.takeChanges()).toEqual([{id: 'c', type: 'episode'}])
  })
})

/**
 * Which of `positions` to flip bit 0 of in `edited` so that its CRC-32 is `original`'s (same
 * length): CRC-32 is linear over GF(2), so this is a system of 32 equations, solved by elimination.
 */
function checksumKeepingFlips(original: Buffer, edited: Buffer, positions: number[]): number[] {
  const zeros = Buffer.alloc(edited.length)
  const flipped = (position: number) => {
    const bytes = Buffer.alloc(edited.length)
    bytes[position] = 1
    return (crc32(bytes) ^ crc32(zeros)) >>> 0
  }
  const pivots = new Map<number, {vector: number; flips: bigint}>()
  for (const [index, position] of positions.entries()) {
    let vector = flipped(position)
    let flips = 1n << BigInt(index)
    for (let bit = 31; bit >= 0 && vector !== 0; bit--) {
      if (((vector >>> bit) & 1) === 0) continue
      const pivot = pivots.get(bit)
      if (!pivot) {
        pivots.set(bit, {vector, flips})
        break
      }
      vector = (vector ^ pivot.vector) >>> 0
      flips ^= pivot.flips
    }
  }
  let target = (crc32(original) ^ crc32(edited)) >>> 0
  let flips = 0n
  for (let bit = 31; bit >= 0; bit--) {
    if (((target >>> bit) & 1) === 0) continue
    const pivot = pivots.get(bit)
    if (!pivot) throw new Error('no flips keep the checksum')
    target = (target ^ pivot.vector) >>> 0
    flips ^= pivot.flips
  }
  return positions.filter((_, index) => ((flips >> BigInt(index)) & 1n) === 1n)
}

describe('a change its block checksum misses', () => {
  it('is refused when one of its lines is read, and the next read compares every line and reports it', async () => {
    // Several blocks of lines, a and b in the first.
    const rest = numberedLines(3_000, 100)
    const before = `${line('a', 'שלום')}\n${JSON.stringify({_id: 'b', _type: 'episode', notes: 'b'.repeat(64)})}\n${rest.join('\n')}\n`
    await writeFile(file, before)
    const dataset = openDatasetFile(file)
    await dataset.index()
    // The same length, a's title edited, and some of b's notes' "b"s made "c"s so the CRC-32 stays.
    const edited = Buffer.from(before.replace('שלום', 'שלוס'))
    const notes = before.indexOf('b'.repeat(64))
    for (const position of checksumKeepingFlips(
      Buffer.from(before),
      edited,
      Array.from({length: 64}, (_, index) => Buffer.byteLength(before.slice(0, notes)) + index),
    )) {
      edited[position] = (edited[position] ?? 0) ^ 1
    }
    expect(crc32(edited)).toBe(crc32(before))
    await writeFile(file, edited)

    // The checksum cannot tell (this is the one-in-2^32 case, made on purpose).
    const missed = await dataset.read()
    expect(dataset.takeChanges()).toEqual([])
    expect(() => missed.get('a')).toThrow("a change its block's checksum missed")
    const after = await dataset.read()
    expect(dataset.takeChanges()).toEqual([
      {id: 'a', type: 'episode'},
      {id: 'b', type: 'episode'},
    ])
    expect(after.get('a')?.title).toBe('שלוס')
    expect(after.all()).toEqual(parseNdjson(edited.toString(), 'x'))
  })
})

describe('dataset file fingerprint', () => {
  it('names the bytes, and a change made after it is reported by the first read', async () => {
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'ב')}\n`)
    const dataset = openDatasetFile(file)
    const first = await dataset.fingerprint()
    expect(await openDatasetFile(file).fingerprint()).toBe(first)
    await writeFile(file, `${line('a', 'א')}\n${line('b', 'בית')}\n`)
    const documents = await dataset.read()
    expect(documents.all().map((document) => document.title)).toEqual(['א', 'בית'])
    expect(dataset.takeChanges()).toEqual([{id: 'b', type: 'episode'}])
    expect(await dataset.fingerprint()).not.toBe(first)
  })
})
