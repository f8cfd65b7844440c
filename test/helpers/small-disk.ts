import {execFileSync} from 'node:child_process'
import {mkdtempSync, openSync, closeSync, rmSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {ensureDebianProgram} from '../../support/debian.ts'

/** A 2 MB tmpfs (needs root: mount(8)), which the test can fill, free, and make read-only, for real ENOSPC and EROFS. */
export interface SmallDisk {
  directory: string
  /** Takes every free byte, so the next write fails with ENOSPC. */
  fill(): void
  free(): void
  readOnly(): void
  writable(): void
  unmount(): void
}

export function mountSmallDisk(): SmallDisk {
  const [mount, umount] = [
    ensureDebianProgram('/usr/bin/mount', ['mount']),
    ensureDebianProgram('/usr/bin/umount', ['mount']),
  ]
  const directory = mkdtempSync(join(tmpdir(), 'small-disk-'))
  try {
    execFileSync(mount, ['-t', 'tmpfs', '-o', 'size=2m,mode=0755', 'tmpfs', directory], {stdio: 'pipe'})
  } catch (error) {
    rmSync(directory, {recursive: true, force: true})
    throw new Error('a 2 MB tmpfs could not be mounted: these tests need root (mount(8)) for a real ENOSPC and EROFS', {
      cause: error,
    })
  }
  const filler = join(directory, 'filler')
  const remount = (mode: string) => execFileSync(mount, ['-o', `remount,${mode}`, directory])
  return {
    directory,
    fill() {
      const descriptor = openSync(filler, 'w')
      const chunk = Buffer.alloc(64 * 1024)
      try {
        // Bounded: a 2 MB disk takes at most 32 such chunks.
        for (let written = 0; written < 64; written += 1) writeSync(descriptor, chunk)
        throw new Error(`${directory} did not fill up`)
      } catch (error) {
        if (!(error instanceof Error && 'code' in error && error.code === 'ENOSPC')) throw error
      } finally {
        closeSync(descriptor)
      }
    },
    free: () => rmSync(filler, {force: true}),
    readOnly: () => remount('ro'),
    writable: () => remount('rw'),
    unmount() {
      execFileSync(umount, [directory])
      rmSync(directory, {recursive: true, force: true})
    },
  }
}
