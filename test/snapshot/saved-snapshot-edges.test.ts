// The saved snapshot file at its edges: refused items at exactly half, a problem already listed
// for a refused item, a directory that is not there, a save whose rename fails, the file handles
// it opens, bodies that end exactly at a write block's end, and a header that matches by its key.
import {createHash} from 'node:crypto'
import {mkdir, mkdtemp, readFile, readdir, readlink, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {describeRefused, openSnapshotFile} from '../../server/snapshot/saved-snapshot.ts'
import {snapshotOf} from '../helpers/saved-snapshot-stand-in.ts'

const SETTINGS = {version: '1.0.0', publicBaseUrl: 'http://api.test'}
const CODE = 'code-digest-1'
const BLOCK = 1 << 20
let directory: string
const path = () => join(directory, 'snapshot.ndjson')

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'saved-snapshot-edges-'))
})
afterEach(() => rm(directory, {recursive: true, force: true}))

const body = (slug: string, filler = '') => Buffer.from(JSON.stringify({data: {slug, filler}}))
/** A body of exactly `length` bytes. */
const bodyOfLength = (slug: string, length: number) => body(slug, 'x'.repeat(length - body(slug).length))

/** The file with the bodies at `damaged` changed by one byte (their first `{` made `[`). */
async function damage(damaged: number[]) {
  const bytes = await readFile(path())
  let at = bytes.indexOf(0x0a) + 1
  for (let index = 0; at < bytes.length; index++) {
    if (damaged.includes(index)) bytes[at] = 0x5b
    at = bytes.indexOf(0x0a, at) + 1
  }
  await writeFile(path(), bytes)
}

describe('a damaged saved snapshot', () => {
  it('is still used with exactly half of its items damaged, those left out', async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf([body('a'), body('b'), body('c'), body('d')]), 'f')
    await damage([1, 3])
    const saved = await file.load()
    expect(saved?.refused.map((item) => item.documentId)).toEqual(['ep-1', 'ep-3'])
    expect(saved?.catalog.episodes.map((entry) => entry.documentId)).toEqual(['ep-0', 'ep-2'])
  })

  it("reports a refused item's checksum in place of the problems it had", async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    const warned = {documentId: 'ep-1', collection: 'episodes', severity: 'warning', messages: ['no image']}
    const other = {documentId: 'ep-0', collection: 'episodes', severity: 'warning', messages: ['no audio']}
    await file.save(snapshotOf([body('a'), body('b'), body('c')], [warned, other]), 'f')
    await damage([1])
    const saved = await file.load()
    expect(saved?.catalog.problems.map((problem) => [problem.documentId, problem.severity])).toEqual([
      ['ep-0', 'warning'],
      ['ep-1', 'rejected'],
    ])
  })

  it('names ten refused items without counting more', () => {
    const refused = Array.from({length: 10}, (_, index) => ({collection: 'voices' as const, documentId: `v-${index}`}))
    expect(describeRefused(refused)).toBe(
      `10 saved item(s) do not match their checksum and are left out: ${refused.map((item) => `voices ${item.documentId}`).join(', ')}`,
    )
  })
})

describe('a saved snapshot', () => {
  it('is not there when its directory is not', async () => {
    expect(await openSnapshotFile(join(directory, 'never-made'), SETTINGS, CODE).load()).toBeUndefined()
  })

  it('is used when its key matches, whatever settings key it names', async () => {
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf([body('a')]), 'f')
    const text = await readFile(path(), 'utf8')
    const newline = text.indexOf('\n')
    const header = JSON.stringify({...JSON.parse(text.slice(text.indexOf(' ') + 1, newline)), settingsKey: 'other'})
    const digest = createHash('sha256').update(header).digest('base64url')
    await writeFile(path(), `${digest} ${header}${text.slice(newline)}`)
    expect(await file.load()).toMatchObject({otherCode: false, fingerprint: 'f'})
  })

  it('leaves no temporary file when it cannot be renamed into place', async () => {
    await mkdir(join(path(), 'in-the-way'), {recursive: true})
    await expect(openSnapshotFile(directory, SETTINGS, CODE).save(snapshotOf([body('a')]), 'f')).rejects.toThrow()
    expect(await readdir(directory)).toEqual(['snapshot.ndjson'])
  })

  it('closes the files it opens, saving and loading', async () => {
    const open = async () => {
      const links = await Promise.all(
        (await readdir('/proc/self/fd')).map((fd) => readlink(join('/proc/self/fd', fd)).catch(() => '')),
      )
      return links.filter((link) => link.startsWith(directory))
    }
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf([body('a')]), 'f')
    expect(await open()).toEqual([])
    expect(await file.load()).toBeDefined()
    expect(await open()).toEqual([])
  })

  it('keeps every line whole when bodies end exactly at a write block or fill one', async () => {
    const first = body('a')
    // The second body ends one byte before the block does: its newline goes into the next block.
    const bodies = [first, bodyOfLength('b', BLOCK - first.length - 1), bodyOfLength('c', BLOCK), body('d')]
    const file = openSnapshotFile(directory, SETTINGS, CODE)
    await file.save(snapshotOf(bodies), 'f')
    const bytes = await readFile(path())
    const expected = Buffer.concat(bodies.flatMap((item) => [item, Buffer.from('\n')]))
    expect(bytes.subarray(bytes.indexOf(0x0a) + 1).equals(expected)).toBe(true)
    const saved = await file.load()
    expect(saved?.refused).toEqual([])
    expect(saved?.catalog.episodes).toHaveLength(4)
  })
})
