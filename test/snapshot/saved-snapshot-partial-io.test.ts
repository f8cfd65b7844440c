// The saved snapshot when the file system reads and writes fewer bytes than asked, as a read or a
// write may: every byte still lands in its place. And a file that ends before the size it had.
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {snapshotOf} from '../helpers/saved-snapshot-stand-in.ts'

const io = vi.hoisted(() => ({most: Infinity, extraSize: 0}))

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>()
  const open: typeof actual.open = async (...args) => {
    const handle = await actual.open(...args)
    return new Proxy(handle, {
      get(target, property) {
        if (property === 'read')
          return (buffer: Buffer, offset: number, length: number, position: number) =>
            target.read(buffer, offset, Math.min(length, io.most), position)
        if (property === 'write')
          return (buffer: Buffer, offset: number, length: number) =>
            target.write(buffer, offset, Math.min(length, io.most))
        if (property === 'stat')
          return async () => {
            const stats = await target.stat()
            stats.size += io.extraSize
            return stats
          }
        const value: unknown = Reflect.get(target, property)
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
      },
    })
  }
  return {...actual, open}
})

const {openSnapshotFile} = await import('../../server/snapshot/saved-snapshot.ts')

let directory: string
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'saved-snapshot-io-'))
  io.most = Infinity
  io.extraSize = 0
})
afterEach(() => rm(directory, {recursive: true, force: true}))

const bodies = ['a', 'bb', 'ccc', 'עברית'].map((slug) => Buffer.from(JSON.stringify({data: {slug}})))

describe('a saved snapshot read and written a few bytes at a time', () => {
  it('gives back every item as saved', async () => {
    io.most = 7
    const file = openSnapshotFile(directory, {}, 'code')
    await file.save(snapshotOf(bodies), 'fingerprint')
    const saved = await file.load()
    expect(saved?.fingerprint).toBe('fingerprint')
    expect(saved?.refused).toEqual([])
    expect([...(saved?.items.values() ?? [])].map((item) => item.body.toString())).toEqual(
      bodies.map((body) => body.toString()),
    )
  })

  it('rejects a file that ends before the size it had when opened', async () => {
    const file = openSnapshotFile(directory, {}, 'code')
    await file.save(snapshotOf(bodies), 'fingerprint')
    io.extraSize = 10
    await expect(file.load()).rejects.toThrow('the saved snapshot ended while it was read')
  })
})
