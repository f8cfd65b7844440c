// npm run studio:sample: the Studio (`sanity dev`) against a local stand-in of Sanity's API that
// holds the embedded dataset (data/catalog.ndjson), so the plugin can be tried with no account. The
// stand-in is the browser test's (support/content-lake-stand-in.ts): HTTP/2 over TLS with a
// throwaway certificate, because the Studio keeps more event streams open than HTTP/1.1's six
// connections per host. Edits are kept in memory until the script stops.
import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {createServer} from 'node:net'
import {join, resolve} from 'node:path'
import {parseArgs} from 'node:util'
import {parseNdjson} from '../server/content/ndjson.ts'
import {startContentLakeStandIn} from '../support/content-lake-stand-in.ts'

const DATASET = resolve('data/catalog.ndjson')
/** The project the sample's image assets name. */
const PROJECT_ID = 'embedded'
/** Long enough for a first `sanity dev` on a busy machine. */
const DEV_SERVER_START_MS = 180_000

export interface StudioSample {
  /** Where to open the Studio. */
  studioUrl: string
  /** The stand-in's address as the Studio calls it; opened once in the browser to accept its certificate. */
  apiUrl: string
  /** The stand-in's loopback port. */
  apiPort: number
  close(): Promise<void>
}

/**
 * Starts the stand-in on a free loopback port and `sanity dev` on `port`, configured to call the
 * stand-in (SANITY_STUDIO_API_HOST, read by sanity.config.ts). The Studio's client calls
 * `<projectId>.<apiHost>`, and browsers resolve every `*.localhost` name to the machine itself.
 */
export async function startStudioSample(options: {port: number; log?: (line: string) => void}): Promise<StudioSample> {
  // Checked first: another server on the port would answer the poll below in the Studio's place.
  if (!(await isFree(options.port))) throw new Error(`port ${options.port} is in use (another port: --port)`)
  const documents = parseNdjson(await readFile(DATASET, 'utf8'), DATASET)
  // The stand-in also serves a built Studio under its test host name; here nothing is built there.
  const unused = await mkdtemp(join(tmpdir(), 'studio-sample-'))
  const lake = await startContentLakeStandIn({studioDirectory: unused, projectId: PROJECT_ID, documents})
  // The stand-in tells its address only in its rules for Chromium (`MAP <host> 127.0.0.1:<port>`).
  const apiPort = Number(/ 127\.0\.0\.1:(\d+)/.exec(lake.hostResolverRules)?.[1])
  if (!Number.isInteger(apiPort)) throw new Error(`no port in ${lake.hostResolverRules}`)
  const apiHost = `https://localhost:${apiPort}`
  const studio = spawn(
    process.execPath,
    ['node_modules/@sanity/cli/bin/run.js', 'dev', '--host', '127.0.0.1', '--port', String(options.port)],
    {
      env: {
        ...process.env,
        SANITY_TELEMETRY_DISABLED: '1',
        SANITY_STUDIO_PROJECT_ID: PROJECT_ID,
        SANITY_STUDIO_DATASET: 'production',
        SANITY_STUDIO_API_HOST: apiHost,
      },
      // Its own process group, so whatever `sanity dev` starts stops with it.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  for (const stream of [studio.stdout, studio.stderr])
    stream.on('data', (chunk: Buffer) => options.log?.(chunk.toString()))
  const close = async () => {
    await stopGroup(studio)
    await lake.close()
    await rm(unused, {recursive: true, force: true})
  }
  const studioUrl = `http://localhost:${options.port}/`
  try {
    await untilServed(`http://127.0.0.1:${options.port}/`, studio)
  } catch (error) {
    await close()
    throw error
  }
  return {studioUrl, apiUrl: `https://${PROJECT_ID}.localhost:${apiPort}/ping`, apiPort, close}
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/** Polls the dev server until it answers, or fails when it exits or takes too long. */
async function untilServed(url: string, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + DEV_SERVER_START_MS
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`sanity dev exited with code ${child.exitCode}`)
    const response = await fetch(url, {signal: AbortSignal.timeout(10_000)}).catch(() => undefined)
    if (response) {
      await response.arrayBuffer()
      if (response.ok) return
    }
    await new Promise((done) => setTimeout(done, 250))
  }
  throw new Error(`sanity dev did not answer at ${url} within ${DEV_SERVER_START_MS / 1000} s`)
}

/** SIGTERM to the child's process group, then SIGKILL if it is still there after 10 s. */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((done) => child.once('exit', done))
  process.kill(-child.pid, 'SIGTERM')
  const timer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  }, 10_000)
  await exited
  clearTimeout(timer)
}

if (import.meta.main) {
  const {values} = parseArgs({options: {port: {type: 'string', default: '3333'}}})
  const sample = await startStudioSample({port: Number(values.port)}).catch((error: unknown) => {
    console.error(`studio:sample: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  })
  console.log(`The Studio with the embedded dataset (edits are kept until you stop this, Ctrl-C):

  1. Open ${sample.apiUrl} once and accept its certificate
     (a throwaway one, made for this run; the page then says "PONG").
  2. Open ${sample.studioUrl}
`)
  const stop = () => {
    sample.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
