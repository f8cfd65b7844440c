// node bench/edit-cost.ts [label]: where an edit's CPU and the peak RSS go at 100k documents
// (dataset file), on `npm start`'s own command line. A cold start (saved to SNAPSHOT_DIR), then a
// warm one that is edited: episode titles, the feed assembled, titles with the feed polled,
// chapters. Each edit is made on a settled server; its CPU (utime + stime of /proc/<pid>/stat)
// is read when GET shows it and again once the server has settled (the site documents' warm-up
// included), and VmHWM after each stage. PROBE_FLAGS adds Node flags (say `--cpu-prof
// --cpu-prof-dir=…`); `windows` in the result are the edits' spans on the monotonic clock, which a
// CPU profile's timestamps share. Prints one JSON result; the benchmark's own figures stay in bench:scale.
import {existsSync} from 'node:fs'
import {mkdir, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {parseNdjson} from '../server/content/ndjson.ts'
import {growDataset} from '../support/grow-dataset.ts'
import {deliverWebhook, sleep, startServerProcess, waitUntil, type ServerProcess} from './server-process.ts'

const label = process.argv[2] ?? 'run'
const SIZE = Number(process.env.PROBE_SIZE ?? 100_000)
const EDITS = Number(process.env.PROBE_EDITS ?? 4)
const folder = process.env.PROBE_DIR ?? '/tmp/perf-probe'
const SECRET = 'bench-webhook-secret-0123456789'
const TICK_MS = 10 // CLK_TCK is 100 on Linux
const SETTLE_MS = 30_000

await mkdir(folder, {recursive: true})
const datasetFile = join(folder, `catalog-${SIZE}.ndjson`)
const pristine = join(folder, `pristine-${SIZE}.ndjson`)
if (!existsSync(pristine)) {
  const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
  await writeFile(
    pristine,
    `${growDataset(sample, SIZE)
      .map((document) => JSON.stringify(document))
      .join('\n')}\n`,
  )
}
const lines = (await readFile(pristine, 'utf8')).split('\n')
await writeFile(datasetFile, lines.join('\n'))
const snapshotDir = join(folder, `snapshots-${label}`)
await rm(snapshotDir, {recursive: true, force: true})

const episodeLines = lines.flatMap((line, index) => (line.includes('"_type":"episode"') ? [index] : []))
const editedLine = episodeLines[Math.floor(episodeLines.length / 2)] ?? 0
const original = z
  .looseObject({_id: z.string(), _type: z.string(), slug: z.object({current: z.string()})})
  .parse(JSON.parse(lines[editedLine] ?? '{}'))
const slug = original.slug.current

const writeDataset = async () => {
  await writeFile(`${datasetFile}.next`, lines.join('\n'))
  await rename(`${datasetFile}.next`, datasetFile)
}
const edit = async (changes: Record<string, unknown>) => {
  lines[editedLine] = JSON.stringify({...original, ...changes})
  await writeDataset()
}

const micros = () => Number(process.hrtime.bigint() / 1000n)

const start = () =>
  startServerProcess(
    {
      SANITY_WEBHOOK_SECRET: SECRET,
      RATE_LIMIT_QUOTA: '1000000000',
      SNAPSHOT_DIR: snapshotDir,
      DATASET_FILE: datasetFile,
    },
    (process.env.PROBE_FLAGS ?? '').split(' ').filter(Boolean),
  )
const waitFor = (condition: () => boolean) => waitUntil(condition, 180_000)
const cpuMs = async (server: ServerProcess) => (await server.cpuTicks()) * TICK_MS
const deliver = (server: ServerProcess) => deliverWebhook(server, {_id: original._id, _type: original._type}, SECRET)

async function status(server: ServerProcess): Promise<{hwm: number; rss: number}> {
  const text = await readFile(`/proc/${server.child.pid}/status`, 'utf8')
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1] ?? Number.NaN) / 1024
  return {hwm: Math.round(kib('VmHWM')), rss: Math.round(kib('VmRSS'))}
}

const etagOf = async (server: ServerProcess, path: string) =>
  (await fetch(`${server.baseUrl}${path}`, {method: 'HEAD', headers: {'accept-encoding': 'identity'}})).headers.get(
    'etag',
  )

interface Measured {
  visibleMs: number
  cpuToVisibleMs: number
  cpuToSettledMs: number
}
const windows: {kind: string; fromUs: number; toUs: number}[] = []

/** One edit: settled, changed, announced, polled until `visible()`, then settled again. */
async function measure(
  server: ServerProcess,
  kind: string,
  changes: Record<string, unknown>,
  visible: () => Promise<boolean>,
): Promise<Measured> {
  await server.settled(SETTLE_MS)
  const cpuBefore = await cpuMs(server)
  const fromUs = micros()
  await edit(changes)
  await deliver(server)
  while (!(await visible())) {
    if (micros() - fromUs > 120e6) throw new Error(`${kind} never became visible`)
    await sleep(2)
  }
  const toUs = micros()
  const cpuVisible = await cpuMs(server)
  windows.push({kind, fromUs, toUs})
  await server.settled(SETTLE_MS)
  return {
    visibleMs: Math.round((toUs - fromUs) / 1000),
    cpuToVisibleMs: cpuVisible - cpuBefore,
    cpuToSettledMs: (await cpuMs(server)) - cpuBefore,
  }
}

/** The heap in use and allocated, and memory outside it, MiB, from the server's own /metrics. */
async function heap(server: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text()
  const read = (name: string) => Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 2 ** 20)
  return {
    heapUsed: read('nodejs_heap_size_used_bytes'),
    heapTotal: read('nodejs_heap_size_total_bytes'),
    external: read('nodejs_external_memory_bytes'),
  }
}

// The highest VmRSS seen in each stage, sampled every 20 ms: which stage sets the peak.
let stage = 'cold start'
let sampled: ServerProcess | undefined
const stageRss: Record<string, number> = {}
const sampler = setInterval(() => {
  if (!sampled) return
  readFile(`/proc/${sampled.child.pid}/status`, 'utf8').then(
    (text) => {
      const rss = Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(text)?.[1] ?? 0) / 1024)
      stageRss[stage] = Math.max(stageRss[stage] ?? 0, rss)
    },
    () => undefined,
  )
}, 20)

const result: Record<string, unknown> = {label, documents: lines.filter(Boolean).length}
const cold = await start()
sampled = cold.server
const coldAtFirstOk = (await status(cold.server)).hwm
stage = 'cold saving'
await waitFor(() => /saved the snapshot/.test(cold.server.output()))
await cold.server.settled(SETTLE_MS)
result.cold = {
  firstOkMs: Math.round(cold.firstOkMs),
  cpuMs: await cpuMs(cold.server),
  hwmAtFirstOk: coldAtFirstOk,
  ...(await status(cold.server)),
  ...(await heap(cold.server)),
}
await cold.server.stop()

const warm = await start()
sampled = warm.server
stage = 'warm start'
await waitFor(() =>
  /reusing the snapshot saved|full rebuild (done|failed)|could not be read/.test(warm.server.output()),
)
await warm.server.settled(SETTLE_MS)
stage = 'settled'
const {server} = warm
result.warm = {
  firstOkMs: Math.round(warm.firstOkMs),
  cpuMs: await cpuMs(server),
  ...(await status(server)),
  ...(await heap(server)),
}

const itemPath = `/api/v1/episodes/${slug}.json`
const shows = (text: string) => async () => {
  const response = await fetch(`${server.baseUrl}${itemPath}`)
  return response.ok && (await response.text()).includes(text)
}
const stages: Record<string, unknown> = {}
stage = 'edits'
const edits: Measured[] = []
for (let round = 1; round <= EDITS; round++) {
  const title = `עריכה ${round}`
  edits.push(await measure(server, 'edit', {title}, shows(title)))
}
stages.edits = {edits, ...(await status(server)), ...(await heap(server))}

stage = 'feed'
const feedStarted = micros()
const cpuBeforeFeed = await cpuMs(server)
await etagOf(server, '/feed.xml')
stages.feed = {ms: Math.round((micros() - feedStarted) / 1000), cpuMs: (await cpuMs(server)) - cpuBeforeFeed}
await server.settled(SETTLE_MS)
Object.assign(stages.feed as object, await status(server), await heap(server))

stage = 'feed edits'
const feedEdits: Measured[] = []
for (let round = 1; round <= EDITS; round++) {
  const before = await etagOf(server, '/feed.xml')
  feedEdits.push(
    await measure(
      server,
      'feed',
      {title: `עריכה בפיד ${round}`},
      async () => (await etagOf(server, '/feed.xml')) !== before,
    ),
  )
}
stages.feedEdits = {edits: feedEdits, ...(await status(server)), ...(await heap(server))}

stage = 'chapters'
const chapterEdits: Measured[] = []
for (let round = 1; round <= EDITS; round++) {
  const chapterTitle = `מקטע ${round}`
  const chapters = [
    {_key: 'opening', _type: 'chapter', start: '0:00', title: 'פתיחה'},
    {_key: 'edited', _type: 'chapter', start: '0:30', title: chapterTitle},
  ]
  chapterEdits.push(await measure(server, 'chapters', {chapters}, shows(chapterTitle)))
}
stages.chapters = {edits: chapterEdits, ...(await status(server)), ...(await heap(server))}
result.stages = stages
clearInterval(sampler)
result.stageRss = stageRss

result.builds = server
  .output()
  .split('\n')
  .filter((line) => /rebuild|saved the snapshot|reusing/.test(line))
  .map((line) => /"msg":"([^"]*)"/.exec(line)?.[1] ?? line)
result.windows = windows
await server.stop()
await writeFile(join(folder, `result-${label}.json`), JSON.stringify(result, null, 2))
console.log(JSON.stringify({...result, windows: undefined, builds: undefined}, null, 1))
