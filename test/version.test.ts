// The code digest the saved snapshot is keyed by, computed over copies of the project: it moves
// with a change to any file under server/ or catalog/ and with the package version, and only then.
import {cp, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {codeDigest} from '../server/version.ts'

const folder = await mkdtemp(join(tmpdir(), 'catalog-code-digest-'))
afterAll(() => rm(folder, {recursive: true, force: true}))

/** A copy of server/, catalog/, package.json and the lock file, changed by `change`; its own version.ts's digest. */
async function digestOfCopy(name: string, change: (root: string) => Promise<void> = async () => undefined) {
  const root = join(folder, name)
  for (const code of ['server', 'catalog']) await cp(code, join(root, code), {recursive: true})
  for (const file of ['package.json', 'package-lock.json']) await cp(file, join(root, file))
  await change(root)
  const module = z.object({codeDigest: z.function()}).parse(await import(join(root, 'server', 'version.ts')))
  return String(module.codeDigest())
}

describe('codeDigest', () => {
  it('is the same for the same code, and moves with a mapper or a server module changed under the same version', async () => {
    expect(await digestOfCopy('same')).toBe(codeDigest())
    for (const file of [join('catalog', 'v1', 'episode.ts'), join('server', 'snapshot', 'snapshot.ts')]) {
      const changed = await digestOfCopy(file.replaceAll('/', '-'), async (root) => {
        const code = join(root, file)
        await writeFile(code, `${await readFile(code, 'utf8')}\n// another build\n`)
      })
      expect(changed, file).not.toBe(codeDigest())
    }
  })

  it('moves with the package version, which `npm version` writes into the lock file too', async () => {
    const bumped = await digestOfCopy('version', async (root) => {
      for (const file of ['package.json', 'package-lock.json']) {
        const path = join(root, file)
        await writeFile(path, (await readFile(path, 'utf8')).replace('"version": "0.1.0"', '"version": "0.1.1"'))
      }
    })
    expect(bumped).not.toBe(codeDigest())
  })
})
