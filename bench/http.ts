// npm run bench:http: the origin against nginx serving the very same bytes (a static export of the
// same catalog), side by side, alternating, with wrk on loopback. The origin runs with its rate
// limiter on. Each server is pinned to CPU 0 and wrk to CPU 1, so each side has one core (nginx
// runs one worker). Then the origin alone at 1k, 10k and 100k documents: throughput for one item,
// the first and a later list page, and memory. Writes bench/results/http.md.
import {execFile, spawn, type ChildProcess} from 'node:child_process'
import {chmod, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {cpus, tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {parseNdjson} from '../server/content/ndjson.ts'
import {growDataset} from './grow-dataset.ts'
import {waitFor} from './wait-for.ts'

const run = promisify(execFile)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = 64
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').filter(Boolean).map(Number)
const PROFILE = process.env.BENCH_PROFILE === '1'
const ORIGIN_PORT = 4301
const NGINX_PORT = 4302

for (const program of ['wrk', 'nginx', 'taskset']) {
  if (!(await run('sh', ['-c', `command -v ${program}`]).then(() => true, () => false))) {
    throw new Error(`${program} is missing: apt-get install wrk nginx libnginx-mod-http-brotli-static util-linux`)
  }
}

const work = await mkdtemp(join(tmpdir(), 'catalog-bench-'))
await chmod(work, 0o755) // nginx's workers may run as another user
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')

async function datasetOf(size: number | 'sample'): Promise<string> {
  if (size === 'sample') return 'data/catalog.ndjson'
  const file = join(work, `catalog-${size}.ndjson`)
  await writeFile(file, growDataset(sample, size).map((document) => JSON.stringify(document)).join('\n'))
  return file
}

async function startOrigin(dataset: string, options: {profileDirectory?: string} = {}): Promise<ChildProcess> {
  const nodeArguments = options.profileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDirectory}`] : []
  const origin = spawn('taskset', ['-c', '0', process.execPath, ...nodeArguments, 'server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(ORIGIN_PORT),
      PUBLIC_BASE_URL: 'http://api.test',
      DATASET_FILE: dataset,
      RATE_LIMIT_QUOTA: '1000000000', // on, counting every request, never refusing one
      RECONCILE_INTERVAL_SECONDS: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  await waitFor(`http://127.0.0.1:${ORIGIN_PORT}/api/v1/index.json`)
  // The bulk document and its variants are built just after start; wait until they are.
  await fetch(`http://127.0.0.1:${ORIGIN_PORT}/api/v1/all.json`, {headers: {'Accept-Encoding': 'br'}}).then((response) => response.arrayBuffer())
  return origin
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

async function startNginx(dataset: string): Promise<ChildProcess> {
  const out = join(work, 'export')
  await run(process.execPath, ['server/export.ts', '--out', out, '--listen', `127.0.0.1:${NGINX_PORT}`], {
    env: {...process.env, PUBLIC_BASE_URL: 'http://api.test', DATASET_FILE: dataset},
  })
  const nginx = spawn('taskset', ['-c', '0', 'nginx', '-p', out, '-c', join(out, 'nginx.conf'), '-g', 'daemon off;'], {stdio: ['ignore', 'ignore', 'inherit']})
  await waitFor(`http://127.0.0.1:${NGINX_PORT}/api/v1/index.json`)
  return nginx
}

interface Case {
  name: string
  path: string
  headers: (port: number) => Promise<Record<string, string>>
}

const identity = async () => ({'Accept-Encoding': 'identity'})
const cases: Case[] = [
  {name: 'bulk document (all.json, identity)', path: '/api/v1/all.json', headers: identity},
  {name: 'one episode (identity)', path: '/api/v1/episodes/ep-3-schema-migrations.json', headers: identity},
  {
    name: 'one episode, 304 (If-None-Match)',
    path: '/api/v1/episodes/ep-3-schema-migrations.json',
    // Each server's own ETag: nginx's are its own (modification time and size).
    headers: async (port) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/episodes/ep-3-schema-migrations.json`, {headers: {'Accept-Encoding': 'identity'}})
      return {'Accept-Encoding': 'identity', 'If-None-Match': response.headers.get('etag') ?? ''}
    },
  },
  {name: 'one episode, brotli', path: '/api/v1/episodes/ep-3-schema-migrations.json', headers: async () => ({'Accept-Encoding': 'gzip, deflate, br'})},
  {name: 'bulk document, brotli', path: '/api/v1/all.json', headers: async () => ({'Accept-Encoding': 'gzip, deflate, br'})},
]

interface Measurement {
  requestsPerSecond: number
  transferPerSecond: string
  latencyP99: string
  errors: number
}

async function wrk(port: number, path: string, headers: Record<string, string>, seconds = SECONDS): Promise<Measurement> {
  const headerArguments = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  const {stdout} = await run('taskset', ['-c', '1', 'wrk', '-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...headerArguments, `http://127.0.0.1:${port}${path}`])
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
  const errors = [...stdout.matchAll(/(?:Non-2xx or 3xx responses|Socket errors:.*?(?:connect|read|write|timeout)) (\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0)
  return {
    requestsPerSecond,
    transferPerSecond: /Transfer\/sec:\s+(\S+)/.exec(stdout)?.[1] ?? '?',
    latencyP99: /^\s+99%\s+(\S+)/m.exec(stdout)?.[1] ?? '?',
    errors,
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const thousands = (value: number) => Math.round(value).toLocaleString('en-US')

async function residentMiB(child: ChildProcess): Promise<number> {
  // taskset execs the server, so the child's pid is the server's.
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024
}

const report: string[] = []
const cpu = cpus()[0]?.model ?? 'unknown CPU'
report.push(`# HTTP benchmark`, '', `${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpu}, Node ${process.version}, wrk 1 thread ${CONNECTIONS} connections ${SECONDS} s per run, ${ROUNDS} alternating rounds (median). Server on CPU 0, wrk on CPU 1; nginx with one worker, \`etag on\`, sendfile, brotli_static and gzip_static, serving \`npm run export\` of the same catalog. The origin's rate limiter is on (every request counted).`, '')

// Part 1: side by side on the sample catalog.
const sampleDataset = await datasetOf('sample')
const origin = await startOrigin(sampleDataset)
const nginx = await startNginx(sampleDataset)
report.push('## Origin and nginx, same bytes', '', '| case | origin req/s | nginx req/s | ratio | origin p99 | nginx p99 | errors |', '|---|---|---|---|---|---|---|')
for (const benchCase of cases) {
  const originRuns: Measurement[] = []
  const nginxRuns: Measurement[] = []
  const originHeaders = await benchCase.headers(ORIGIN_PORT)
  const nginxHeaders = await benchCase.headers(NGINX_PORT)
  for (let round = 0; round < ROUNDS; round++) {
    originRuns.push(await wrk(ORIGIN_PORT, benchCase.path, originHeaders))
    nginxRuns.push(await wrk(NGINX_PORT, benchCase.path, nginxHeaders))
  }
  const originRate = median(originRuns.map((measurement) => measurement.requestsPerSecond))
  const nginxRate = median(nginxRuns.map((measurement) => measurement.requestsPerSecond))
  const errors = [...originRuns, ...nginxRuns].reduce((sum, measurement) => sum + measurement.errors, 0)
  report.push(
    `| ${benchCase.name} | ${thousands(originRate)} | ${thousands(nginxRate)} | ${(originRate / nginxRate).toFixed(2)} | ${originRuns.at(-1)?.latencyP99} | ${nginxRuns.at(-1)?.latencyP99} | ${errors} |`,
  )
  console.log(report.at(-1))
}
await stop(nginx)
await stop(origin)

if (PROFILE) {
  const profileDirectory = join('bench', 'results', 'profiles')
  await mkdir(profileDirectory, {recursive: true})
  const profiled = await startOrigin(sampleDataset, {profileDirectory})
  await wrk(ORIGIN_PORT, '/api/v1/episodes/ep-3-schema-migrations.json', {'Accept-Encoding': 'identity'})
  await stop(profiled)
  report.push('', `A CPU profile of the origin serving one episode is in \`${profileDirectory}\` (open it in Chrome DevTools).`)
}

// Part 2: the origin as the catalog grows.
report.push(
  '',
  '## The origin as the catalog grows',
  '',
  'One item is the first episode; the later page is the fifth page of 100 episodes, reached by its cursor (built on its first request, then kept).',
  '',
  '| documents | one item req/s | first list page req/s | later list page req/s | rss after warm-up | rss after the runs |',
  '|---|---|---|---|---|---|',
)
for (const size of SIZES) {
  const dataset = await datasetOf(size)
  const grown = await startOrigin(dataset)
  const base = `http://127.0.0.1:${ORIGIN_PORT}`
  const firstPage = (await (await fetch(`${base}/api/v1/episodes.json`)).json()) as {data: {slug: string}[]; pagination: {next: string | null}}
  let laterPage = '/api/v1/episodes.json'
  let next = firstPage.pagination.next
  for (let page = 1; page < 5 && next; page++) {
    laterPage = new URL(next).pathname + new URL(next).search
    next = ((await (await fetch(`${base}${laterPage}`)).json()) as {pagination: {next: string | null}}).pagination.next
  }
  const item = `/api/v1/episodes/${firstPage.data[0]?.slug}.json`
  const rssBefore = await residentMiB(grown)
  const itemRate = (await wrk(ORIGIN_PORT, item, {'Accept-Encoding': 'br'})).requestsPerSecond
  const firstRate = (await wrk(ORIGIN_PORT, '/api/v1/episodes.json', {'Accept-Encoding': 'br'})).requestsPerSecond
  const laterRate = (await wrk(ORIGIN_PORT, laterPage, {'Accept-Encoding': 'br'})).requestsPerSecond
  const rssAfter = await residentMiB(grown)
  report.push(`| ${thousands(size)} | ${thousands(itemRate)} | ${thousands(firstRate)} | ${thousands(laterRate)} | ${rssBefore.toFixed(0)} MiB | ${rssAfter.toFixed(0)} MiB |`)
  console.log(report.at(-1))
  await stop(grown)
}

await mkdir('bench/results', {recursive: true})
await writeFile('bench/results/http.md', `${report.join('\n')}\n`)
await rm(work, {recursive: true, force: true})
console.log('wrote bench/results/http.md')
