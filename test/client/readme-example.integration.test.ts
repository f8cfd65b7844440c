// Integration: the typed client's example in README.md, exactly as written, type-checked against the
// client's types and run by Node as its own process against the server `npm start` runs
// (startTestServer, on an ephemeral loopback port over the sample dataset). Only the package name
// (not installed here) and the address (http://localhost:3000) are replaced.
import {execFile} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {format, promisify} from 'node:util'
import ts from 'typescript'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {startTestServer, type TestServer} from '../../support/server.ts'

const run = promisify(execFile)
const PACKAGE = '@code-talks/catalog-client'
const ENTRY = resolve('client/src/index.ts')

/** The ```ts block of README.md's "A typed client" section. */
function readmeExample(): string {
  const section = /^## A typed client\n([\s\S]*?)^## /m.exec(readFileSync('README.md', 'utf8'))?.[1] ?? ''
  const example = /^```ts\n([\s\S]*?)^```/m.exec(section)?.[1]
  if (example === undefined) throw new Error('README.md has no ```ts block under "## A typed client"')
  return example
}

let server: TestServer
let directory: string
let exampleFile: string

beforeAll(async () => {
  server = await startTestServer()
  directory = await mkdtemp(join(tmpdir(), 'catalog-client-readme-'))
  exampleFile = join(directory, 'example.mts')
  const example = readmeExample()
  expect(example).toContain(`'${PACKAGE}'`)
  expect(example).toContain("'http://localhost:3000/api/v1'")
  await writeFile(
    exampleFile,
    example.replace(`'${PACKAGE}'`, JSON.stringify(ENTRY)).replace('http://localhost:3000', server.baseUrl),
  )
})
afterAll(async () => {
  await server.close()
  await rm(directory, {recursive: true, force: true})
})

const get = async (path: string): Promise<unknown> => (await fetch(`${server.baseUrl}${path}`)).json()
const named = z.object({name: z.string()})
const everything = z.object({
  data: z.object({voices: z.array(named)}),
  counts: z.object({episodes: z.number(), meetups: z.number(), voices: z.number()}),
})

describe("README.md's typed-client example", () => {
  it('type-checks against the client, as an integrator would compile it', () => {
    const program = ts.createProgram([exampleFile], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
      allowImportingTsExtensions: true,
      skipLibCheck: true,
    })
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
    expect(problems).toEqual([])
  })

  it('prints what the server serves', async () => {
    const {stdout} = await run(process.execPath, [exampleFile], {cwd: directory})
    const episode = z
      .object({data: z.object({title: z.string(), guests: z.array(z.object({slug: z.string()}))})})
      .parse(await get('/api/v1/episodes/ep-22-cache-invalidation.json')).data
    const all = everything.parse(await get('/api/v1/all.json'))
    const notFound = z
      .object({status: z.number(), title: z.string()})
      .parse(await get('/api/v1/episodes/no-such-episode.json'))
    expect(all.counts.voices).toBeGreaterThan(5) // so the voices come on more than one page
    expect(stdout.split('\n')).toEqual([
      format(
        episode.title,
        episode.guests.map((guest) => guest.slug),
      ),
      ...all.data.voices.map((voice) => voice.name),
      `${String(all.counts.episodes)} ${String(all.counts.episodes + all.counts.meetups + all.counts.voices)}`,
      '0',
      `${String(notFound.status)} ${notFound.title}`,
      '',
    ])
  })
})
