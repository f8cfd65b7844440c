// The plugin is installed as its own package: every package that it, or a module it imports
// (schemas/, catalog/), imports must be in plugin/package.json, or a Studio that
// installs the plugin alone fails to build. Imports are read with TypeScript's own scanner.
import {readdirSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'
import {describe, expect, it} from 'vitest'
import {z} from 'zod'

const PLUGIN = fileURLToPath(new URL('../../plugin/', import.meta.url))
const manifest = z
  .object({dependencies: z.record(z.string(), z.string()), peerDependencies: z.record(z.string(), z.string())})
  .parse(JSON.parse(readFileSync(join(PLUGIN, 'package.json'), 'utf8')))

/** `@scope/name/sub` and `name/sub` name the packages `@scope/name` and `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/')

/** The packages imported by the plugin's modules and by every module they import, transitively. */
function importedPackages(): {packages: Set<string>; builtIns: string[]} {
  const pending = readdirSync(PLUGIN, {recursive: true, encoding: 'utf8'})
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => join(PLUGIN, name))
  const read = new Set<string>()
  const packages = new Set<string>()
  const builtIns: string[] = []
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (read.has(file)) continue
    read.add(file)
    for (const {fileName} of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (fileName.startsWith('.')) pending.push(join(dirname(file), fileName))
      else if (fileName.startsWith('node:')) builtIns.push(`${file}: ${fileName}`)
      else packages.add(packageOf(fileName))
    }
  }
  return {packages, builtIns}
}

describe("the plugin's package.json", () => {
  const {packages: imported, builtIns} = importedPackages()

  it('declares every package the plugin and the catalog modules it imports use', () => {
    // The walk reaches the catalog's feed modules through the feed preview.
    expect(imported).toContain('feedsmith')
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)])
    expect([...imported].filter((name) => !declared.has(name)).sort()).toEqual([])
  })

  it('is reached by no Node built-in: the Studio runs in a browser, where importing one stops it loading', () => {
    expect(builtIns).toEqual([])
  })

  it('lists no dependency that nothing imports', () => {
    expect(Object.keys(manifest.dependencies).filter((name) => !imported.has(name))).toEqual([])
  })
})
