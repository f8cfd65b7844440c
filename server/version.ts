import {createHash} from 'node:crypto'
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import packageJson from '../package.json' with {type: 'json'}

/** This server's version, as MCP server info and discovery documents state it. */
export const SERVER_VERSION: string = packageJson.version

let digest: string | undefined

/**
 * A digest of the code that makes the served bytes: every file under `server/` and `catalog/` (the
 * mappers, queries and feed item the server shares with the Studio), path and contents in sorted
 * order, and the dependency lock file. A deploy that changes a mapper under the same package
 * version gets another digest, so a snapshot saved by the old code is not reused. Computed once,
 * on first use.
 */
export function codeDigest(): string {
  if (digest !== undefined) return digest
  const hash = createHash('sha256')
  const root = join(import.meta.dirname, '..')
  const files = ['server', 'catalog']
    .flatMap((folder) => readdirSync(join(root, folder), {recursive: true, withFileTypes: true}))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
  for (const file of [...files, join(root, 'package-lock.json')]) {
    hash.update(`${file.slice(root.length)}\0`)
    try {
      hash.update(readFileSync(file))
    } catch {
      hash.update('\0absent\0') // a deployment without a lock file still gets a stable digest
    }
  }
  return (digest = hash.digest('base64url'))
}
