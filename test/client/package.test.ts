// The typed client as its own package (@code-talks/catalog-client): its manifest names no dependency,
// its published build (client/tsconfig.json: the DOM's types, none of Node's) compiles, the built
// files import only each other, and the entry the manifest exports loads and offers what the docs show.
import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdtemp, readdir, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'

const run = promisify(execFile)
const manifestSchema = z.looseObject({
  name: z.string(),
  type: z.literal('module'),
  exports: z.object({'.': z.object({types: z.string(), default: z.string()})}),
  files: z.array(z.string()),
})

let outDir: string
beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'catalog-client-build-'))
  await run(resolve('node_modules/.bin/tsc'), ['-p', 'client/tsconfig.json', '--outDir', outDir]).catch(
    (error: unknown) => {
      const {stdout} = z
        .object({stdout: z.string()})
        .catch({stdout: String(error)})
        .parse(error)
      throw new Error(`client/tsconfig.json does not build:\n${stdout}`)
    },
  )
})
afterAll(async () => {
  await rm(outDir, {recursive: true, force: true})
})

describe('the client package', () => {
  it('names no dependency, and publishes the entry its build makes', async () => {
    const manifest = manifestSchema.parse(JSON.parse(await readFile('client/package.json', 'utf8')))
    expect(manifest.name).toBe('@code-talks/catalog-client')
    expect(Object.keys(manifest).filter((key) => /dependencies$/i.test(key))).toEqual([])
    const {types, default: entry} = manifest.exports['.']
    for (const file of [types, entry]) {
      expect(file.startsWith(`./${manifest.files[0] ?? ''}/`)).toBe(true)
      expect(existsSync(join(outDir, file.replace(/^\.\/dist\//, '')))).toBe(true)
    }
  })

  it('builds files that import nothing but each other', async () => {
    const built = (await readdir(outDir)).filter((name) => name.endsWith('.js'))
    expect(built).toContain('index.js')
    for (const name of built) {
      const text = await readFile(join(outDir, name), 'utf8')
      const specifiers = [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g)].map(([, each]) => each)
      expect(
        specifiers.filter((specifier) => !/^\.\/[\w-]+\.js$/.test(specifier ?? '')),
        name,
      ).toEqual([])
    }
  })

  it('loads from its build and exports the client and its error class', async () => {
    const entry: unknown = await import(pathToFileURL(join(outDir, 'index.js')).href)
    expect(Object.keys(z.looseObject({}).parse(entry)).sort()).toEqual(['CatalogProblem', 'createCatalogClient'])
  })
})
