// The project's own documentation: the README is a front door of at most 250 lines, its
// configuration table lists exactly the variables `server/config.ts` reads, and every relative
// link in it and in docs/ resolves in a clone, anchors included.
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ENVIRONMENT_VARIABLES} from '../server/config.ts'

const read = (file: string) => readFileSync(file, 'utf8')
const markdownFiles = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
]

/** Text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replaceAll(/^```[\s\S]*?^```/gm, '')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replaceAll('`', '')
    .replaceAll(/[^\p{L}\p{N}\- _]/gu, '')
    .replaceAll(' ', '-')
}
const anchorsIn = (file: string) =>
  new Set([...prose(read(file)).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading = '']) => anchorOf(heading)))

describe('the documentation', () => {
  it('has a README of at most 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250)
  })

  it('lists in the README exactly the environment variables the server reads', () => {
    const section = /^## Configuration\n([\s\S]*?)^## /m.exec(read('README.md'))?.[1] ?? ''
    const documented = [...section.matchAll(/^\| (.+?) \|/gm)].flatMap(([, cell = '']) =>
      [...cell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(([, name = '']) => name),
    )
    expect(documented.length).toBeGreaterThan(0)
    expect([...documented].sort()).toEqual([...ENVIRONMENT_VARIABLES].sort())
  })

  it.each(markdownFiles)('%s links only to files and headings that exist in the repository', (file) => {
    const broken: string[] = []
    for (const [, target = ''] of prose(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [path = '', anchor] = target.split('#')
      const resolved = path === '' ? file : join(dirname(file), path)
      if (!existsSync(resolved)) broken.push(`${target} (no ${relative('.', resolved)})`)
      else if (anchor && (statSync(resolved).isDirectory() || !anchorsIn(resolved).has(anchor)))
        broken.push(`${target} (no heading #${anchor})`)
    }
    expect(broken).toEqual([])
  })
})
