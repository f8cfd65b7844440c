// `node bench/publish-journey.ts`: which of the project's files one publish runs code in. The
// server is assembled in-process as server/main.ts assembles it (createStdoutLog, boundHeapHeadroom,
// createCatalogService, listen on an ephemeral port), under V8's precise coverage (per-function
// call counts), which starts before any server module is loaded. Once it serves and has settled,
// counts are reset and an idle window of WINDOW_MS is taken; then one publish is set off and a
// window of the same length from its start is taken. A file is visited when one of its functions
// (a module's top level aside) ran at least once in the publish window; "net" keeps a file only
// when one of its functions ran in the publish window and not in the idle one (what timers tick
// idle is subtracted, function by function).
//
// Profiles: `full` turns on every output a publish feeds that exists both before and after the
// redesign (SNAPSHOT_DIR, CDN_PURGE=varnish with its PURGE to a loopback sink, WEBSUB_HUB and
// PODCAST_INDEX_PUBNOTIFY_URL to the same sink, REDIS_URL to a redis-server of its own);
// `minimal` sets only SANITY_WEBHOOK_SECRET. Triggers: `webhook` is a signed Sanity delivery
// naming the edited episode, the content served by an embedded source over the sample dataset in
// memory (the Content Lake's part, without its HTTP); `file` is an edit of the dataset file
// (renamed over it), which the file watcher of `npm start`'s embedded dataset picks up.
// Prints a Markdown summary; `--json <file>` also writes every run's file lists. The results and
// the count of changes of direction: bench/results/publish-journey.md.
import {spawn} from 'node:child_process'
import {closeSync, openSync} from 'node:fs'
import {copyFile, mkdtemp, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import {Session} from 'node:inspector/promises'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join, relative} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {startRedis} from '../support/redis.ts'
import {deliverWebhook} from './server-process.ts'

const WINDOW_MS = Number(process.env.JOURNEY_WINDOW_MS ?? 3000)
/** Where the publish window is cut in two: what runs later comes from timers (the 1 s warm-up, the 1 s save). */
const EARLY_MS = 500
const DATASET = 'data/catalog.ndjson'
const EPISODE = {_id: 'd2f441d8-4dae-4d68-aef3-c1e3e372aefb', _type: 'episode'}
const EPISODE_PATH = '/api/v1/episodes/ep-1-why-we-started.json'
const OLD_TITLE = '"title":"פרק 1: למה התחלנו פודקאסט על קוד"'
const NEW_TITLE = '"title":"פרק 1: כותרת שנערכה"'
const SECRET = 'a-bench-webhook-secret-of-some-length'
const PROFILES = ['full', 'minimal'] as const
const TRIGGERS = ['webhook', 'file'] as const
type Profile = (typeof PROFILES)[number]
type Trigger = (typeof TRIGGERS)[number]

/** Per file (relative to the repository), the functions that ran at least once: `name@offset`. */
type Visited = Record<string, string[]>

interface Run {
  profile: Profile
  trigger: Trigger
  idle: Visited
  /** The publish window: its first EARLY_MS, and the rest. */
  early: Visited
  publish: Visited
  /** What was seen of the publish from outside, for the reader to check it went all the way. */
  observed: Record<string, string | number | boolean>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const root = process.cwd()
const own = fileURLToPath(import.meta.url)

const oneAt = process.argv.indexOf('--one')
if (oneAt >= 0) {
  const [profile, trigger, output] = process.argv.slice(oneAt + 1) as [Profile, Trigger, string]
  await writeFile(output, JSON.stringify(await measure(profile, trigger)))
  process.exit(0)
} else {
  const runs: Run[] = []
  for (const profile of PROFILES)
    for (const trigger of TRIGGERS) {
      const output = join(tmpdir(), `publish-journey-${process.pid}-${profile}-${trigger}.json`)
      await inChild(profile, trigger, output)
      runs.push(JSON.parse(await readFile(output, 'utf8')) as Run)
      await rm(output, {force: true})
    }
  console.log(summary(runs))
  const jsonAt = process.argv.indexOf('--json')
  const jsonFile = jsonAt >= 0 ? process.argv[jsonAt + 1] : undefined
  if (jsonFile) await writeFile(jsonFile, `${JSON.stringify(runs, null, 1)}\n`)
}

/** Each run in a process of its own: coverage must start before the first server module loads. */
function inChild(profile: Profile, trigger: Trigger, output: string): Promise<void> {
  const child = spawn(process.execPath, [own, '--one', profile, trigger, output], {
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${profile}/${trigger} exited ${code}`)))),
  )
}

async function measure(profile: Profile, trigger: Trigger): Promise<Run> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.startPreciseCoverage', {callCount: true, detailed: false})
  const take = async (): Promise<Visited> => visitedFiles((await session.post('Profiler.takePreciseCoverage')).result)

  const directory = await mkdtemp(join(tmpdir(), 'publish-journey-'))
  const datasetFile = join(directory, 'catalog.ndjson')
  await copyFile(DATASET, datasetFile)
  const text = await readFile(datasetFile, 'utf8')
  if (!text.includes(OLD_TITLE)) throw new Error(`${DATASET} has no episode titled ${OLD_TITLE}`)
  const sink = await startSink()
  const redis = profile === 'full' ? await startRedis() : undefined
  const logFile = join(directory, 'server.log')
  const logFd = openSync(logFile, 'w')

  const [{loadConfig}, {createStdoutLog}, {boundHeapHeadroom}, {createCatalogService}, embedded, {parseNdjson}] =
    await Promise.all([
      import('../server/config.ts'),
      import('../server/observability/logger.ts'),
      import('../server/snapshot/heap-growth.ts'),
      import('../server/catalog-service.ts'),
      import('../server/content/embedded-source.ts'),
      import('../server/content/ndjson.ts'),
    ])
  const environment: Record<string, string> = {
    PORT: '0',
    DATASET_FILE: datasetFile,
    SANITY_WEBHOOK_SECRET: SECRET,
    LOG_LEVEL: 'info',
  }
  if (profile === 'full')
    Object.assign(environment, {
      SNAPSHOT_DIR: join(directory, 'snapshot'),
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: `${sink.url}/varnish`,
      CDN_PURGE_TOKEN: 'a-purge-token-of-some-length',
      WEBSUB_HUB: `${sink.url}/hub`,
      PODCAST_INDEX_PUBNOTIFY_URL: `${sink.url}/pubnotify`,
      REDIS_URL: redis?.url ?? '',
    })
  const config = loadConfig(environment)
  const log = createStdoutLog(config.logLevel, {fd: logFd})
  boundHeapHeadroom()
  let documents = parseNdjson(text, datasetFile)
  const source =
    trigger === 'webhook'
      ? embedded.createEmbeddedSource('the sample dataset in memory', () => Promise.resolve(documents))
      : undefined
  let builds = 0
  const service = await createCatalogService(config, log, {
    ...(source && {source}),
    onBuild: (outcome) => {
      if (outcome.ok) builds += 1
    },
  })
  const {port} = await service.listen()
  const baseUrl = `http://127.0.0.1:${port}`
  const before = await fetch(`${baseUrl}${EPISODE_PATH}`)
  if (!before.ok) throw new Error(`${EPISODE_PATH} answered ${before.status}`)
  const etagBefore = before.headers.get('etag') ?? ''
  await settle()

  await take() // counts so far are start-up's
  await sleep(WINDOW_MS)
  const idle = await take()

  const heardBefore = sink.heard.length
  const buildsBefore = builds
  const loggedBefore = (await readFile(logFile, 'utf8')).length
  const started = performance.now()
  const edited = text.replace(OLD_TITLE, NEW_TITLE)
  let answered = 0
  if (trigger === 'webhook') {
    documents = parseNdjson(edited, datasetFile)
    await deliverWebhook({baseUrl}, EPISODE, SECRET) // throws unless it answered 202
    answered = 202
  } else {
    await writeFile(`${datasetFile}.new`, edited)
    await rename(`${datasetFile}.new`, datasetFile)
  }
  while (builds === buildsBefore && performance.now() - started < EARLY_MS) await sleep(10)
  const builtMs = Math.round(performance.now() - started)
  await sleep(Math.max(0, EARLY_MS - (performance.now() - started)))
  const early = await take()
  await sleep(Math.max(0, WINDOW_MS - (performance.now() - started)))
  const publish = merged(early, await take())
  const logged = (await readFile(logFile, 'utf8')).slice(loggedBefore)
  const heard = sink.heard.slice(heardBefore)

  // After the window: the change is served (the GET's own work is not counted).
  const after = await fetch(`${baseUrl}${EPISODE_PATH}`)
  const served = (await after.text()).includes(NEW_TITLE.slice('"title":"'.length, -1))
  await service.close(1000)
  await log.close(1000)
  closeSync(logFd)
  await redis?.stop()
  await new Promise((resolve) => sink.server.close(resolve))
  await rm(directory, {recursive: true, force: true})
  session.disconnect()
  return {
    profile,
    trigger,
    idle,
    early,
    publish,
    observed: {
      webhookStatus: answered,
      buildsInWindow: builds - buildsBefore,
      builtAfterMs: builtMs,
      newTitleServed: served,
      etagChanged: etagBefore !== '' && etagBefore !== after.headers.get('etag'),
      sinkRequests: heard.join(' '),
      savedInWindow: logged.split('\n').filter((line) => line.includes('saved the snapshot')).length,
    },
  }
}

/** The project's files (node_modules and this benchmark aside) whose functions ran, top levels aside. */
function visitedFiles(
  scripts: {url: string; functions: {functionName: string; ranges: {startOffset: number; count: number}[]}[]}[],
): Visited {
  const visited: Visited = {}
  const prefix = pathToFileURL(root).href + '/'
  for (const script of scripts) {
    if (!script.url.startsWith(prefix) || script.url.includes('/node_modules/')) continue
    const file = relative(root, fileURLToPath(script.url))
    if (file.startsWith('bench/')) continue
    const ran = script.functions
      .filter((fn) => (fn.ranges[0]?.startOffset ?? 0) > 0 && (fn.ranges[0]?.count ?? 0) > 0)
      .map((fn) => `${fn.functionName || '(anonymous)'}@${fn.ranges[0]?.startOffset}`)
    if (ran.length > 0) visited[file] = [...new Set(ran)]
  }
  return visited
}

function merged(first: Visited, second: Visited): Visited {
  const all: Visited = {...first}
  for (const [file, ran] of Object.entries(second)) all[file] = [...new Set([...(all[file] ?? []), ...ran])]
  return all
}

/** Until the process has used under 20 ms of CPU in 500 ms (start-up's warming done), at least 2 s. */
async function settle(): Promise<void> {
  await sleep(2000)
  for (let deadline = performance.now() + 30_000; performance.now() < deadline;) {
    const before = process.cpuUsage()
    await sleep(500)
    const used = process.cpuUsage(before)
    if ((used.user + used.system) / 1000 < 20) return
  }
}

/** A loopback HTTP server answering 200 to anything: the Varnish PURGE, the WebSub hub, pubnotify. */
async function startSink(): Promise<{server: Server; url: string; heard: string[]}> {
  const heard: string[] = []
  const server = createServer((request, response) => {
    heard.push(`${request.method} ${new URL(request.url ?? '/', 'http://sink').pathname}`)
    request.resume()
    response.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, heard}
}

/** Per run: counts, then the net files by folder; the files idle ticks alone explain are named apart. */
function summary(runs: Run[]): string {
  const lines = [`## Files a publish runs code in (${WINDOW_MS} ms windows)`, '']
  lines.push(
    `| profile | trigger | files in the publish window | files in the idle window | net files | server/ | catalog/ | other | net files only after ${EARLY_MS} ms | observed |`,
  )
  lines.push('|---|---|---|---|---|---|---|---|---|---|')
  for (const run of runs) {
    const net = netFiles(run)
    const under = (folder: string) => net.filter((file) => file.startsWith(`${folder}/`)).length
    const observed = Object.entries(run.observed)
      .map(([key, value]) => `${key}: ${String(value)}`)
      .join('; ')
    lines.push(
      `| ${run.profile} | ${run.trigger} | ${Object.keys(run.publish).length} | ${Object.keys(run.idle).length} | ${net.length} | ${under('server')} | ${under('catalog')} | ${net.length - under('server') - under('catalog')} | ${lateFiles(run).length} | ${observed} |`,
    )
  }
  for (const run of runs) {
    const net = netFiles(run)
    lines.push('', `### ${run.profile} / ${run.trigger}: ${net.length} files`, '')
    const byFolder = new Map<string, string[]>()
    for (const file of net) {
      const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '.'
      byFolder.set(folder, [...(byFolder.get(folder) ?? []), file.slice(file.lastIndexOf('/') + 1)])
    }
    for (const [folder, files] of [...byFolder].sort(([a], [b]) => a.localeCompare(b)))
      lines.push(`- ${folder}/ (${files.length}): ${files.sort().join(', ')}`)
    lines.push(`- only after ${EARLY_MS} ms (timers): ${lateFiles(run).join(', ') || 'none'}`)
    const idleOnly = Object.keys(run.publish).filter((file) => !net.includes(file))
    lines.push(`- seen in the publish window but explained by idle ticks: ${idleOnly.sort().join(', ') || 'none'}`)
  }
  return lines.join('\n')
}

/** Files with a function that ran in the publish window (or in `part` of it) and not in the idle one. */
function netFiles(run: Run, part: Visited = run.publish): string[] {
  return Object.entries(part)
    .filter(([file, ran]) => ran.some((fn) => !(run.idle[file] ?? []).includes(fn)))
    .map(([file]) => file)
    .sort()
}

/** Net files none of whose functions (idle ones aside) ran in the window's first EARLY_MS. */
function lateFiles(run: Run): string[] {
  const early = netFiles(run, run.early)
  return netFiles(run).filter((file) => !early.includes(file))
}
