import {existsSync} from 'node:fs'
import {link, mkdir, utimes, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {CONTENT_CODINGS} from '../snapshot/compression.ts'
import type {Representation} from '../snapshot/representation.ts'
import type {Body} from '../snapshot/chunked-body.ts'
import type {StaticFile} from './static-files.ts'

const EXTENSIONS = {br: '.br', gzip: '.gz'} as const

export interface ExportSummary {
  files: number
  /** Identity bytes written once (the sandbox's copies are hard links). */
  bytes: number
}

/**
 * Writes each representation with its `.br` and `.gz` siblings, dated with its Last-Modified so a
 * static server's validators move exactly when the origin's do. The same representation at a
 * second URL (the sandbox) becomes a hard link: no second copy on disk.
 */
export async function writeExport(root: string, files: readonly StaticFile[]): Promise<ExportSummary> {
  const written = new Map<Representation, string>()
  let bytes = 0
  for (const {file, representation} of files) {
    const target = join(root, file)
    await mkdir(dirname(target), {recursive: true})
    const variants: [string, Body][] = [['', representation.body]]
    for (const coding of CONTENT_CODINGS) {
      const variant = await representation.encode(coding)
      if (variant) variants.push([EXTENSIONS[coding], variant.body])
    }
    const first = written.get(representation)
    for (const [extension, body] of variants) {
      if (existsSync(target + extension)) throw new Error(`${file}${extension} is written twice`)
      if (first) await link(first + extension, target + extension)
      else {
        await writeFile(target + extension, Buffer.isBuffer(body) ? body : body.runs())
        await utimes(target + extension, representation.lastModified, representation.lastModified)
        if (extension === '') bytes += body.length
      }
    }
    if (!first) written.set(representation, target)
  }
  return {files: files.length, bytes}
}
