// Integration: the commands the documentation gives, as a newcomer pastes them. Every ```sh or
// ```bash block of README.md and docs/ is either run here (bash, curl, npm and node as processes,
// against the server `npm start` runs on an ephemeral loopback port, Debian's redis-server for the
// two replicas) or listed in SKIPPED with the reason it cannot run on a test machine. Every
// `npm run` a doc names, in a block or in the text, must be a script, and every flag it passes must
// be one the script accepts.
import {execFile, spawn} from 'node:child_process'
import {readdirSync, readFileSync} from 'node:fs'
import {chmod, mkdtemp, readFile, rm} from 'node:fs/promises'
import {connect} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {ensureDebianProgram} from '../support/debian.ts'
import {freePort} from '../support/free-port.ts'
import {startTestServer, type TestServer} from '../support/server.ts'

const run = promisify(execFile)
const SECRET = 'a-webhook-secret-for-the-docs'
const BIN = resolve('node_modules/.bin')
/** What `npm run` and `npx` give a command: the project's binaries, its own Node first. */
const PATH = `${BIN}:${process.env.PATH ?? ''}`
const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as {scripts: Record<string, string>}).scripts

const markdownFiles = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
]
const read = (file: string) => readFileSync(file, 'utf8')

interface Block {
  /** `file › first command`, the key of RUN and SKIPPED. */
  id: string
  text: string
}

/** One command per line: continuation lines joined, comment lines and trailing comments dropped. */
function commandsIn(text: string): string[] {
  return text
    .replaceAll(/\s*\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

const blocks: Block[] = markdownFiles.flatMap((file) =>
  [...read(file).matchAll(/^```(?:sh|bash)\n([\s\S]*?)^```/gm)].map(([, text = '']) => ({
    id: `${file} › ${commandsIn(text)[0] ?? ''}`,
    text,
  })),
)

/** Commands the docs give in their text, as `npm run …` or `npx …` code spans. */
const inlineCommands = markdownFiles.flatMap((file) =>
  [
    ...read(file)
      .replaceAll(/^```[\s\S]*?^```/gm, '')
      .matchAll(/`([^`\n]+)`/g),
  ]
    .map(([, span = '']) => span)
    .filter((span) => /(?:^|\s)npm run \S|^npx \S/.test(span))
    .map((command) => ({file, command})),
)
const documentedCommands = [
  ...blocks.flatMap((block) => commandsIn(block.text).map((command) => ({file: block.id, command}))),
  ...inlineCommands,
]

/** A documented argument list as argv: optional parts taken, placeholders (`<id>`, `DIR`, `…`) given a value. */
function argvOf(args: string): string[] {
  const tokens = args
    .replaceAll(/[[\]]/g, ' ')
    .split(/\s+/)
    .filter((token) => token !== '' && token !== '|')
  // `--backend …` is a flag given again with some value; a `…` after a value repeats that value.
  return tokens
    .filter((token, index) => token !== '…' || tokens[index - 1]?.startsWith('--'))
    .map((token) => (token === '…' || /^<.*>$/.test(token) || /^[A-Z]+$/.test(token) ? 'x' : token))
}
const flagsOf = (argv: string[]) =>
  argv.filter((token) => token.startsWith('--')).map((flag) => flag.split('=')[0] ?? '')

/** `npm run <script> [-- args]` anywhere in a command line. */
const npmRuns = documentedCommands.flatMap(({file, command}) =>
  [...command.matchAll(/npm run ([\w:-]+)(?: -- ([^&;|]*))?/g)].map(([, script = '', args = '']) => ({
    file,
    script,
    argv: argvOf(args),
  })),
)

/** `npx <binary> <subcommand…> args`: the binary, its subcommand words, and the flags passed. */
const npxRuns = documentedCommands.flatMap(({file, command}) => {
  const [, tail = ''] = /(?:^|\s)npx (.*)$/.exec(command) ?? []
  if (!tail) return []
  const [binary = '', ...rest] = argvOf(tail)
  const words = rest.slice(
    0,
    Math.max(
      0,
      rest.findIndex((token) => !/^[a-z][a-z-]*$/.test(token)),
    ),
  )
  return [{file, binary, words, flags: flagsOf(rest)}]
})

/** A script's own file when it is `node [options] file.ts`. */
function nodeScriptFile(script: string): string | undefined {
  const [command, ...args] = (scripts[script] ?? '').split(' ')
  return command === 'node' ? args.find((arg) => arg.endsWith('.ts')) : undefined
}

/** The `--help` text of a project binary's (sub)command, run with the project's Node. */
async function helpOf(binary: string, words: string[]): Promise<string> {
  const {stdout, stderr} = await run(join(BIN, binary), [...words, '--help'], {env: {PATH}, timeout: 60_000})
  return stdout + stderr
}
const mentions = (text: string, flag: string) => new RegExp(`${flag}(?![\\w-])`).test(text)

const PROBE = '--docs-test-unknown-flag'
/**
 * Runs a parseArgs script with the documented flags and one flag no script has: parseArgs (strict)
 * stops at the first flag it does not know, so the error must name the probe, never a documented flag.
 */
async function unknownFlagOf(file: string, argv: string[]): Promise<string> {
  const result = await run(process.execPath, [file, ...argv, PROBE], {env: {PATH}, timeout: 60_000}).catch(
    (error: unknown) => error as {stdout: string; stderr: string},
  )
  return /Unknown option '([^']+)'/.exec(result.stdout + result.stderr)?.[1] ?? 'none'
}

/** Blocks a test machine cannot run, each with the reason. */
const SKIPPED: Record<string, string> = {
  'README.md › npm ci && npm start':
    'installs packages into the clone; the server it starts is what this test starts, and `npm test` is the suite itself',
  'docs/content-and-webhooks.md › npx sanity login':
    'needs a Sanity account, a browser and a project (the import flags are checked against the installed CLI below)',
  'docs/production.md › sudo useradd --system --home /srv/catalog-api --shell /usr/sbin/nologin catalog':
    'needs root, a system user and a repository URL (the transcript in docs/production.md ran it in a clone)',
  'docs/production.md › git clone <repository> /tmp/fresh-clone && cd /tmp/fresh-clone':
    'clones and installs from a repository URL; the block after it, the rest of the transcript, is run here in this checkout',
  'docs/production.md › sudo cp deploy/catalog-api@.service /etc/systemd/system/':
    'needs root and systemd (test/deploy/systemd-unit.test.ts verifies the unit)',
  'docs/production.md › for replica in 1 2; do': 'needs root and systemd units',
  'docs/studio.md › npm run studio:sample':
    'serves the Studio until Ctrl-C; test/browser/studio-sample.browser.test.ts starts its server part (startStudioSample) and checks it',
  'docs/studio.md › npm run studio':
    'serves the Studio until stopped, against a Sanity project; test/browser/studio.browser.test.ts builds and runs the Studio',
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer({environment: {SANITY_WEBHOOK_SECRET: SECRET}})
})
afterAll(() => server.close())

/** The block's text with the documented local address replaced by the test server's. */
const onTestServer = (text: string) => text.replaceAll('http://localhost:3000', server.baseUrl)

/** Runs a block with bash -e, as a pasted block runs, with the given environment. */
async function bash(text: string, environment: Record<string, string> = {}, cwd?: string) {
  return run('bash', ['-e', '-c', text], {env: {PATH, ...environment}, timeout: 60_000, cwd})
}

/** `# output` lines after a command: the output it documents, `…` standing for anything. */
function documentedOutput(text: string): RegExp[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('# '))
    .map(
      (line) =>
        new RegExp(
          `^${line
            .slice(2)
            .replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')
            .replaceAll('…', '.*')}$`,
        ),
    )
}

/** Blocks run here: each gets its block's text and checks what it prints. */
const RUN: Record<string, (text: string) => Promise<void>> = {
  'README.md › curl -s http://localhost:3000/mcp -H \'Content-Type: application/json\' -H \'Accept: application/json, text/event-stream\' -d \'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_catalog","arguments":{"query":"וובהוקים","limit":1}}}\'':
    async (text) => {
      const {stdout} = await bash(onTestServer(text))
      const lines = stdout.split('\n').filter((line) => line !== '')
      const expected = documentedOutput(text)
      expect(expected.length).toBeGreaterThan(0)
      expect(lines).toHaveLength(expected.length)
      lines.forEach((line, index) => expect(line).toMatch(expected[index] ?? /^$/))
    },
  'docs/content-and-webhooks.md › SANITY_WEBHOOK_SECRET=<the secret> npm run webhook:send -- <document-id> --type episode':
    async (text) => {
      const id = '0768c2f1-8c09-4bc7-a6b7-0ae8d61347fd'
      const command = text.replace('<the secret>', SECRET).replace('<document-id>', id)
      const {stdout} = await bash(command, {PORT: new URL(server.baseUrl).port})
      expect(stdout).toContain('→ 202 {"status":"accepted","rebuild":"document"}')
    },
  'docs/content-and-webhooks.md › body=\'{"_id":"0768c2f1-8c09-4bc7-a6b7-0ae8d61347fd","_type":"episode"}\'': async (
    text,
  ) => {
    const {stdout} = await bash(onTestServer(text), {SANITY_WEBHOOK_SECRET: SECRET})
    expect(JSON.parse(stdout)).toEqual({status: 'accepted', rebuild: 'document'})
  },
  'docs/content-and-webhooks.md › jq -c \'select(._type != "sanity.imageAsset") | del(.coverImage, .thumbnail, .headshot, .artwork)\' data/catalog.ndjson > sample.ndjson':
    async (text) => {
      const directory = await mkdtemp(join(tmpdir(), 'docs-jq-'))
      try {
        await bash(text.replace('data/catalog.ndjson', resolve('data/catalog.ndjson')), {}, directory)
        const written = (await readFile(join(directory, 'sample.ndjson'), 'utf8')).trim().split('\n')
        const documents = read('data/catalog.ndjson').trim().split('\n')
        expect(written).toHaveLength(documents.filter((line) => !line.includes('"_type":"sanity.imageAsset"')).length)
        expect(written.filter((line) => line.includes('"_ref":"image-'))).toEqual([])
      } finally {
        await rm(directory, {recursive: true, force: true})
      }
    },
  "docs/operating.md › redis-server --port 6379 --bind 127.0.0.1 --save '' --appendonly no &": async (text) => {
    ensureDebianProgram('/usr/bin/redis-server', ['redis-server'])
    const [redisPort, first, second] = [await freePort(), await freePort(), await freePort()]
    const script = text
      .replaceAll('6379', String(redisPort))
      .replaceAll('3001', String(first))
      .replaceAll('3002', String(second))
    const run = await runInGroup(script)
    try {
      expect(await run.exit).toBe(0)
      // What the greps print; the servers' JSON log lines and Redis's banner share the terminal.
      const etags = run
        .stdout()
        .split('\n')
        .filter((line) => /etag/i.test(line) && !line.startsWith('{'))
      expect(etags).toHaveLength(2)
      expect(etags[0]).toMatch(/^etag: "[^"]+"\r?$/i)
      expect(etags[1]).toBe(etags[0])
    } finally {
      await stopGroup(run.pgid)
    }
  },
  'docs/production.md › mkdir -p /tmp/fresh-edge': async (text) => {
    ensureDebianProgram('/usr/bin/redis-server', ['redis-server'])
    ensureDebianProgram('/usr/sbin/varnishd', ['varnish', 'varnish-modules'])
    ensureDebianProgram('/usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so', ['varnish-modules'])
    ensureDebianProgram('/usr/bin/jq', ['jq'])
    // The block's own `mkdir -p` makes the directory, in a parent as open as /tmp (varnishd reads the
    // VCL there as the varnish user).
    const parent = await mkdtemp(join(tmpdir(), 'docs-production-'))
    await chmod(parent, 0o755)
    const directory = join(parent, 'fresh-edge')
    const [origin, edge, redis] = [await freePort(), await freePort(), await freePort()]
    const script = text
      .replaceAll('/tmp/fresh-edge', directory)
      .replaceAll('3917', String(origin))
      .replaceAll('6181', String(edge))
      .replaceAll('6391', String(redis))
    const run = await runInGroup(script)
    try {
      expect(await run.exit, run.output()).toBe(0)
      const lines = run
        .stdout()
        .split('\n')
        .map((line) => line.trimEnd())
      expect(lines).toContain(
        `Catalog API: http://127.0.0.1:${edge}/api/v1/index.json (listening on 127.0.0.1:${origin})`,
      )
      expect(lines).toContain('→ 202 {"status":"accepted","rebuild":"document"}')
      // The titles and X-Cache lines in order: cached before the edit; fetched once after it, then cached.
      const title = 'פרק 27: למידת מכונה על המכשיר'
      expect(lines.filter((line) => line.startsWith('פרק 27') || /^x-cache:/i.test(line))).toEqual([
        title,
        'X-Cache: HIT',
        `${title} (מעודכן)`,
        'X-Cache: MISS',
        `${title} (מעודכן)`,
        'X-Cache: HIT',
      ])
      const status = z
        .object({purges_sent: z.number(), queue_depth: z.number()})
        .parse(JSON.parse(lines.find((line) => line.startsWith('{"purges_sent"')) ?? 'null'))
      expect(status.purges_sent).toBeGreaterThan(0)
      expect(status.queue_depth).toBe(0)
      // The block stops what it started: npm and the server with their process group (waited for),
      // then Varnish and Redis, which remove their pid files as they go.
      expect(await listening(origin)).toBe(false)
      for (const port of [edge, redis]) await expect.poll(() => listening(port), {timeout: 10_000}).toBe(false)
      // The server drained and stopped before Redis went: its log ends so, with no error on the way.
      const log = (await readFile(join(directory, 'origin.log'), 'utf8'))
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => z.object({level: z.number(), msg: z.string().optional()}).parse(JSON.parse(line)))
      expect(log.filter((line) => line.level >= 50)).toEqual([])
      expect(log.at(-1)?.msg).toMatch(/^stopped after SIGTERM/)
    } finally {
      await stopGroup(run.pgid)
      // A block that failed half-way leaves them running: the origin in the process group setsid
      // made, Varnish and Redis as daemons, all outside the block's own group.
      const originGroup = Number(await readFile(join(directory, 'origin.pid'), 'utf8').catch(() => '0'))
      if (originGroup > 0) await stopGroup(originGroup)
      for (const file of ['varnishd.pid', 'redis.pid']) {
        const pid = Number(await readFile(join(directory, file), 'utf8').catch(() => '0'))
        if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL')
      }
      await rm(parent, {recursive: true, force: true, maxRetries: 5})
    }
  },
}

/**
 * Runs a block with bash -e in a process group of its own (so what it leaves in the background can
 * be stopped with it), in this checkout, with the test's PATH and HOME.
 */
async function runInGroup(script: string) {
  const child = spawn('bash', ['-e', '-c', script], {
    env: {PATH, HOME: process.env.HOME ?? '/tmp'},
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return {
    pgid: child.pid ?? 0,
    exit: new Promise<number | null>((done) => child.once('exit', done)),
    stdout: () => stdout,
    output: () => `${stdout}\n${stderr}`,
  }
}

/** Whether a process is still there. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Whether something accepts connections on a loopback port. */
async function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      done(true)
    })
    socket.once('error', () => done(false))
  })
}

/** SIGTERM to a process group, then waits (at most 30 s) until none of it is left. */
async function stopGroup(pgid: number) {
  if (alive(-pgid)) process.kill(-pgid, 'SIGTERM')
  const deadline = Date.now() + 30_000
  while (alive(-pgid) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100))
  if (alive(-pgid)) process.kill(-pgid, 'SIGKILL')
}

describe('the shell blocks of the documentation', () => {
  it('are each run here or skipped with a reason, and neither list names a block that is gone', () => {
    const ids = blocks.map((block) => block.id)
    expect(ids.filter((id) => !(id in RUN) && !(id in SKIPPED))).toEqual([])
    expect([...Object.keys(RUN), ...Object.keys(SKIPPED)].filter((id) => !ids.includes(id))).toEqual([])
  })

  it.each(blocks.filter((block) => block.id in RUN).map((block) => [block.id, block] as const))(
    'runs %s',
    async (id, block) => {
      await RUN[id]?.(block.text)
    },
    120_000,
  )
})

describe('the commands the documentation names', () => {
  it('names only npm scripts that exist', () => {
    expect(npmRuns.length).toBeGreaterThan(0)
    expect(npmRuns.filter(({script}) => !(script in scripts)).map(({file, script}) => `${file}: ${script}`)).toEqual([])
  })

  const withFlags = npmRuns.filter(({argv}) => argv.length > 0)
  const parsed = withFlags.filter(({script}) => read(nodeScriptFile(script) ?? 'package.json').includes('parseArgs('))
  it.each(parsed.map(({file, script, argv}) => [`${script} ${argv.join(' ')}`, file, script, argv] as const))(
    'passes npm run %s (%s) only flags the script accepts',
    async (_, __, script, argv) => {
      expect(await unknownFlagOf(nodeScriptFile(script) ?? '', argv)).toBe(PROBE)
    },
    60_000,
  )

  it('passes the benchmarks only flags their file reads', () => {
    const unread = withFlags
      .filter(({script}) => !parsed.some((run) => run.script === script) && nodeScriptFile(script))
      .flatMap(({file, script, argv}) =>
        flagsOf(argv)
          .filter((flag) => !read(nodeScriptFile(script) ?? '').includes(`'${flag}'`))
          .map((flag) => `${file}: npm run ${script} -- ${flag}`),
      )
    expect(unread).toEqual([])
  })

  const cliRuns = [
    ...withFlags
      .filter(({script}) => !nodeScriptFile(script))
      .map(({file, script, argv}) => {
        const [binary = '', ...words] = (scripts[script] ?? '').split(' ')
        return {file, binary, words, flags: flagsOf(argv)}
      }),
    ...npxRuns,
  ].filter(({flags}) => flags.length > 0)
  it.each(cliRuns.map((cli) => [`${cli.binary} ${cli.words.join(' ')} ${cli.flags.join(' ')}`, cli] as const))(
    'passes %s only flags its --help lists',
    async (_, {binary, words, flags}) => {
      const help = await helpOf(binary, words)
      expect(flags.filter((flag) => !mentions(help, flag))).toEqual([])
    },
    60_000,
  )
})
