// The project's own documentation: the README is a front door of at most 250 lines, its
// configuration table lists exactly the variables `server/config.ts` reads, its endpoint table
// exactly the paths of the OpenAPI document (and the feed), and every relative link in it and in
// docs/ resolves in a clone, anchors included.
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {buildOpenApiDocument} from '../server/api/openapi.ts'
import {ENVIRONMENT_VARIABLES} from '../server/config.ts'
import {FEED_PATH} from '../server/feed/rss-feed.ts'

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

/** Every path the OpenAPI document describes, on each of its servers (the live API and the sandbox). */
function openApiPaths(): string[] {
  const document = buildOpenApiDocument({publicBaseUrl: 'https://api.example', apiName: 'Example Catalog'})
  return (document.servers ?? []).flatMap(({url}) =>
    Object.keys(document.paths ?? {}).map((path) => `${new URL(url).pathname}${path}`),
  )
}

const SANDBOX_ROW = '/api/v1/sandbox/…'
/** The paths of the README's endpoint table; its `/api/v1/sandbox/…` row stands for the sandbox copy of every API path. */
function endpointTablePaths(): string[] {
  const section = /^## Endpoints\n([\s\S]*?)^## /m.exec(read('README.md'))?.[1] ?? ''
  const paths = [...section.matchAll(/^\| (.+?) \| .* \|$/gm)].flatMap(([, cell = '']) =>
    [...cell.matchAll(/`([^`]+)`/g)].map(([, path = '']) => path),
  )
  const others = paths.filter((path) => path !== SANDBOX_ROW)
  const sandbox = paths.includes(SANDBOX_ROW)
    ? others.filter((path) => path.startsWith('/api/v1/')).map((path) => path.replace('/api/v1/', '/api/v1/sandbox/'))
    : []
  return [...others, ...sandbox]
}

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

  it("lists in the README's endpoint table every path of the OpenAPI document, and besides them only the feed", () => {
    const documented = endpointTablePaths()
    const described = openApiPaths()
    expect(described.length).toBeGreaterThan(0)
    expect(described.filter((path) => !documented.includes(path))).toEqual([])
    expect(documented.filter((path) => !described.includes(path))).toEqual([FEED_PATH])
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
