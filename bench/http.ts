// npm run bench:http: the origin against the plainest strong baselines serving the very same bytes,
// in one run, alternating, with wrk on loopback: raw node:http writing the origin's pre-built
// buffers (the Node ceiling), a Fastify 5 route serving the same buffers (the peer), a plain nginx
// (one location, `etag on`, sendfile, no access log), the same nginx writing an access log, and
// nginx with the static export's own configuration. The origin runs with its rate limiter and
// metrics on, once with request logs off (LOG_LEVEL=warn) and once on (info, to a file, as
// `npm start` runs it). Each server is pinned to CPU 0 and wrk to CPU 1, so each side has one core
// (nginx runs one worker). Then the origin alone at 1k, 10k and 100k documents.
//
// Cases: one episode, a list page, the bulk document, a 304, brotli, and an MCP tools/call of
// search_catalog. For MCP, raw node:http answering pre-built JSON-RPC bytes would make the ratio
// meaningless (the origin must search), so its baseline is the origin's own MCP server (the same
// SDK handler and tools) on bare node:http: the ratio is what the origin adds around the SDK
// (Express, body limits, Host checks, limiter, metrics), as the other cases measure what it adds
// around the bytes. The tool's work without the SDK at all is reported beside it, not guarded: the
// SDK costs several times the search, by design. nginx and Fastify have no MCP case, and plain
// nginx none for brotli (it has no brotli_static).
//
// `--quick` (CI, .ci/run): the origin with logs off and raw node:http only, three rounds of 1 s per
// case, each round in fresh processes (median); exits 1 when any case of the origin is below half of raw node:http in
// the same run (a 2× regression), in requests per second and in requests per CPU-second, after
// measuring a failing case once more, so one noisy second does not fail CI. Writes bench/results/http.md unless quick. BENCH_SECONDS, BENCH_ROUNDS, BENCH_SLICES,
// BENCH_SIZES ('' skips part 2), BENCH_TREES (`label=directory,…`: other checkouts of the origin,
// each run with logs off and on, to show what a change bought).
import {execFile, spawn, type ChildProcess} from 'node:child_process'
import {chmod, mkdir, mkdtemp, open, readFile, rm, writeFile} from 'node:fs/promises'
import {cpus, tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {parseNdjson} from '../server/content/ndjson.ts'
import {growDataset} from '../support/grow-dataset.ts'
import {START_ENV, START_FLAGS} from '../support/start-command.ts'
import {waitFor} from './wait-for.ts'

const run = promisify(execFile)
const QUICK = process.argv.includes('--quick')
const SECONDS = QUICK ? 1 : Number(process.env.BENCH_SECONDS ?? 6)
const ROUNDS = QUICK ? 3 : Number(process.env.BENCH_ROUNDS ?? 3)
/** A round's seconds per case and server are measured in this many slices, the servers taking turns. */
const SLICES = QUICK ? 1 : Math.max(1, Math.min(SECONDS, Number(process.env.BENCH_SLICES ?? 3)))
const CONNECTIONS = 32
/**
 * Uncounted seconds of load each server takes when a round starts, added to the first case's own
 * warm-up second. A process fresh from start-up is still compiling its hot code (on its own core,
 * beside the requests) for two to three seconds under load, more so for the origin, which has more
 * of it: one episode measured in 1 s slices from fresh processes read the origin at 0.54 to 0.85 of
 * raw node:http in the first slice, 0.82 to 0.92 in the second, and about 0.87 from the third on.
 * Without this, the first case of every round (one episode) measured start-up; the quick run (CI's
 * guard) takes two of them, since its first case read under the guard on a first try.
 */
const ROUND_WARM_UP_SECONDS = QUICK ? 2 : 3
const SIZES = QUICK ? [] : (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').filter(Boolean).map(Number)
/** The guard: below this share of raw node:http, a case of the origin fails the quick run. */
const GUARD_RATIO = 0.5
const TREES = (process.env.BENCH_TREES ?? '')
  .split(',')
  .filter(Boolean)
  .map((entry) => {
    const [label = '', directory = ''] = entry.split('=')
    return {label, directory}
  })
const PROFILE = process.env.BENCH_PROFILE === '1'
const ORIGIN_PORT = 4301

for (const program of QUICK ? ['wrk', 'taskset'] : ['wrk', 'nginx', 'taskset']) {
  if (
    !(await run('sh', ['-c', `command -v ${program}`]).then(
      () => true,
      () => false,
    ))
  ) {
    throw new Error(`${program} is missing: apt-get install wrk nginx libnginx-mod-http-brotli-static util-linux`)
  }
}

const work = await mkdtemp(join(tmpdir(), 'catalog-bench-'))
await chmod(work, 0o755) // nginx's workers may run as another user
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')

async function datasetOf(size: number | 'sample'): Promise<string> {
  if (size === 'sample') return 'data/catalog.ndjson'
  const file = join(work, `catalog-${size}.ndjson`)
  await writeFile(
    file,
    growDataset(sample, size)
      .map((document) => JSON.stringify(document))
      .join('\n'),
  )
  return file
}

const ORIGIN_ENVIRONMENT = {
  PUBLIC_BASE_URL: 'http://api.test',
  RATE_LIMIT_QUOTA: '1000000000', // on, counting every request, never refusing one
  RECONCILE_INTERVAL_SECONDS: '0',
}

/** A Node process on CPU 0; its stdout (the request log, for the origin) goes to a file, as a log collector would take it. */
async function startNode(
  script: string,
  port: number,
  environment: Record<string, string>,
  options: {profileDirectory?: string; cwd?: string} = {},
): Promise<ChildProcess> {
  // The origin runs with npm start's Node flags and environment; the peers with Node's defaults.
  const origin = script === 'server/main.ts'
  const nodeArguments = [
    ...(origin ? START_FLAGS : []),
    ...(options.profileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDirectory}`] : []),
  ]
  const stdout = await open(join(work, `stdout-${port}.log`), 'w')
  const child = spawn('taskset', ['-c', '0', process.execPath, ...nodeArguments, script], {
    env: {...process.env, ...(origin ? START_ENV : {}), ...ORIGIN_ENVIRONMENT, ...environment, PORT: String(port)},
    stdio: ['ignore', stdout.fd, 'inherit'],
    cwd: options.cwd,
  })
  await stdout.close() // the child has its own copy of the descriptor
  await waitFor(`http://127.0.0.1:${port}/api/v1/index.json`)
  // The bulk document and its variants are built just after start; wait until they are.
  await fetch(`http://127.0.0.1:${port}/api/v1/all.json`, {headers: {'Accept-Encoding': 'br'}}).then((response) =>
    response.arrayBuffer(),
  )
  return child
}

const startOrigin = (
  dataset: string,
  options: {profileDirectory?: string; logLevel?: string; port?: number; cwd?: string} = {},
) =>
  startNode(
    'server/main.ts',
    options.port ?? ORIGIN_PORT,
    {DATASET_FILE: options.cwd ? join(process.cwd(), dataset) : dataset, LOG_LEVEL: options.logLevel ?? 'warn'},
    options,
  )

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** The export of the catalog, once: the files every nginx serves. */
async function exportCatalog(dataset: string, listen: string): Promise<string> {
  const out = join(work, 'export')
  await run(process.execPath, ['server/export.ts', '--out', out, '--listen', listen], {
    env: {...process.env, PUBLIC_BASE_URL: 'http://api.test', DATASET_FILE: dataset},
  })
  return out
}

async function startNginx(prefix: string, configuration: string, port: number): Promise<ChildProcess> {
  const nginx = spawn('taskset', ['-c', '0', 'nginx', '-p', prefix, '-c', configuration, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  await waitFor(`http://127.0.0.1:${port}/api/v1/index.json`)
  return nginx
}

/** The plainest nginx for static JSON: one location, sendfile, `etag on`; with or without an access log. */
async function plainNginx(root: string, port: number, accessLog: boolean): Promise<ChildProcess> {
  const directory = join(work, `plain-${port}`)
  await mkdir(directory, {recursive: true})
  const configuration = join(directory, 'nginx.conf')
  await writeFile(
    configuration,
    `worker_processes 1;
pid ${directory}/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  ${accessLog ? `access_log ${directory}/access.log;` : 'access_log off;'}
  sendfile on;
  tcp_nopush on;
  etag on;
  types { application/json json; }
  default_type application/json;
  client_body_temp_path ${directory}; proxy_temp_path ${directory}; fastcgi_temp_path ${directory}; uwsgi_temp_path ${directory}; scgi_temp_path ${directory};
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { }
  }
}
`,
  )
  return startNginx(directory, configuration, port)
}

interface Case {
  name: string
  path: string
  headers: (port: number) => Promise<Record<string, string>>
  /** A wrk script for a request other than GET (the MCP call). */
  script?: string
  /** The servers this case applies to, by name; all when absent. */
  servers?: readonly string[]
  /** Reported, not guarded, and left out of the quick run. */
  informational?: boolean
}

const EPISODE = '/api/v1/episodes/ep-3-schema-migrations.json'
const identity = () => Promise.resolve({'Accept-Encoding': 'identity'})
const mcpScript = join(work, 'mcp-search.lua')
const MCP_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {name: 'search_catalog', arguments: {query: 'react', limit: 5}},
}
await writeFile(
  mcpScript,
  `wrk.method = "POST"\nwrk.body = '${JSON.stringify(MCP_CALL)}'\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Accept"] = "application/json, text/event-stream"\n`,
)
const NODE_SERVERS = [
  'origin, logs off',
  'origin, logs on',
  'raw node:http',
  "raw node:http, Node's defaults",
  'Fastify',
]
const allCases: Case[] = [
  {name: 'one episode (identity)', path: EPISODE, headers: identity},
  {name: 'list page (episodes.json, identity)', path: '/api/v1/episodes.json', headers: identity},
  {name: 'bulk document (all.json, identity)', path: '/api/v1/all.json', headers: identity},
  {
    name: 'one episode, 304 (If-None-Match)',
    path: EPISODE,
    // Each server's own ETag: nginx's are its own (modification time and size).
    headers: async (port) => {
      const response = await fetch(`http://127.0.0.1:${port}${EPISODE}`, {headers: {'Accept-Encoding': 'identity'}})
      return {'Accept-Encoding': 'identity', 'If-None-Match': response.headers.get('etag') ?? ''}
    },
  },
  {
    name: 'one episode, brotli',
    path: EPISODE,
    headers: () => Promise.resolve({'Accept-Encoding': 'br'}),
    servers: [...NODE_SERVERS, 'export nginx'],
  },
  {
    name: 'MCP tools/call search_catalog',
    path: '/mcp',
    headers: () => Promise.resolve({}),
    script: mcpScript,
    servers: ['origin, logs off', 'origin, logs on', 'raw node:http'],
  },
  {
    name: 'the same search, no MCP SDK (raw node:http only)',
    path: '/mcp-bare',
    headers: () => Promise.resolve({}),
    script: mcpScript,
    servers: ['raw node:http'],
    informational: true,
  },
]
const cases = allCases.filter((benchCase) => !(QUICK && benchCase.informational))
// Other trees of the origin get the origin's cases.
const appliesTo = (benchCase: Case, server: string): boolean =>
  !benchCase.servers || benchCase.servers.includes(server.startsWith('tree ') ? 'origin, logs off' : server)

interface Measurement {
  requestsPerSecond: number
  requests: number
  transferPerSecond: string
  latencyP99: string
  errors: number
}

async function wrk(
  port: number,
  path: string,
  headers: Record<string, string>,
  seconds = SECONDS,
  script?: string,
): Promise<Measurement> {
  const headerArguments = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  const scriptArguments = script ? ['-s', script] : []
  const {stdout} = await run('taskset', [
    '-c',
    '1',
    'wrk',
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    ...scriptArguments,
    ...headerArguments,
    `http://127.0.0.1:${port}${path}`,
  ])
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
  const errors = [
    ...stdout.matchAll(/(?:Non-2xx or 3xx responses|Socket errors:.*?(?:connect|read|write|timeout)) (\d+)/g),
  ].reduce((sum, match) => sum + Number(match[1]), 0)
  return {
    requestsPerSecond,
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1]),
    transferPerSecond: /Transfer\/sec:\s+(\S+)/.exec(stdout)?.[1] ?? '?',
    latencyP99: /^\s+99%\s+(\S+)/m.exec(stdout)?.[1] ?? '?',
    errors,
  }
}

/**
 * CPU seconds (user and system) a server and its live children (nginx's worker) have used. On a
 * shared machine, requests per CPU-second is much steadier than requests per second: another
 * process taking the core slows the server down, but barely changes what a request costs it.
 */
async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN
  const ticks = async (id: string): Promise<number> => {
    const stat = await readFile(`/proc/${id}/stat`, 'utf8').catch(() => '')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const own = Number(fields[11]) + Number(fields[12]) // utime, stime (fields 14 and 15 of proc(5))
    const children = (await readFile(`/proc/${id}/task/${id}/children`, 'utf8').catch(() => ''))
      .split(' ')
      .filter(Boolean)
    return own + (await Promise.all(children.map(ticks))).reduce((sum, value) => sum + value, 0)
  }
  return (await ticks(String(pid))) / 100 // USER_HZ
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
report.push(
  `# HTTP benchmark`,
  '',
  `\`npm run bench:http\` on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpu}, Node ${process.version}, wrk 1 thread ${CONNECTIONS} connections, ${SECONDS} s per case and server in each round, measured in ${SLICES} slices with the servers taking turns, ${ROUNDS} rounds (median), each round in freshly started servers, each given ${1 + ROUND_WARM_UP_SECONDS} s of load before the round's first case and 1 s before each other case. Every server on CPU 0, wrk on CPU 1. nginx runs one worker and serves \`npm run export\` of the same catalog: *plain nginx* with one \`location\`, \`etag on\`, sendfile and no access log; *plain nginx, access log* the same with nginx's default access log to a file; *export nginx* with the export's own configuration (maps, headers, brotli_static and gzip_static). *raw node:http* (\`bench/raw-ceiling.ts\`) writes the origin's pre-built buffers with a fixed header list and nothing else, with the origin's server option \`optimizeEmptyRequests\` (a bodiless request skips its stream's life cycle), so the two are like for like; *raw node:http, Node's defaults* is the same without that option, as most raw node:http servers run; *Fastify* (\`bench/fastify-peer.ts\`) is a Fastify 5 route serving the same buffers with the same headers, given the same server option through Fastify's \`http\` option; *Fastify, same features* (\`bench/fastify-features-peer.ts\`) is that route with the origin's per-request features added through Fastify's own plugins and hooks (@fastify/cors, @fastify/rate-limit counting every request, a request id, nosniff, the catalog version), as a team would write it. For the MCP case, raw node:http is the origin's own MCP server (the same SDK handler and tools) on bare node:http, so that ratio is what the origin adds around the SDK; *the same search, no MCP SDK* is the tool's work alone on raw node:http, reported, not guarded. *tree before* and *tree bulk* are earlier commits of this branch run from their own checkouts (\`BENCH_TREES\`). The origin runs as \`npm start\` does, with its rate limiter (every request counted), metrics, CORS, request ids and lifecycle headers on; *logs off* is \`LOG_LEVEL=warn\`, *logs on* is \`info\` (the default) with stdout to a file.`,
  '',
)

// Part 1: side by side on the sample catalog.
interface Server {
  name: string
  port: number
  start: () => Promise<ChildProcess>
}
const sampleDataset = await datasetOf('sample')
const exported = QUICK ? '' : await exportCatalog(sampleDataset, '127.0.0.1:4302')
const servers: Server[] = [
  {name: 'origin, logs off', port: ORIGIN_PORT, start: () => startOrigin(sampleDataset)},
  {
    name: 'raw node:http',
    port: 4305,
    start: () => startNode('bench/raw-ceiling.ts', 4305, {DATASET_FILE: sampleDataset}),
  },
  ...(QUICK
    ? []
    : [
        {name: 'origin, logs on', port: 4306, start: () => startOrigin(sampleDataset, {logLevel: 'info', port: 4306})},
        {
          name: "raw node:http, Node's defaults",
          port: 4309,
          start: () => startNode('bench/raw-ceiling.ts', 4309, {DATASET_FILE: sampleDataset, RAW_NODE_DEFAULTS: '1'}),
        },
        {
          name: 'Fastify',
          port: 4307,
          start: () => startNode('bench/fastify-peer.ts', 4307, {DATASET_FILE: sampleDataset}),
        },
        {
          name: 'Fastify, same features',
          port: 4308,
          start: () => startNode('bench/fastify-features-peer.ts', 4308, {DATASET_FILE: sampleDataset}),
        },
        {name: 'plain nginx', port: 4303, start: () => plainNginx(join(exported, 'site'), 4303, false)},
        {name: 'plain nginx, access log', port: 4304, start: () => plainNginx(join(exported, 'site'), 4304, true)},
        {name: 'export nginx', port: 4302, start: () => startNginx(exported, join(exported, 'nginx.conf'), 4302)},
        ...TREES.flatMap((tree, index) => [
          {
            name: `tree ${tree.label}, logs off`,
            port: 4310 + 2 * index,
            start: () => startOrigin(sampleDataset, {port: 4310 + 2 * index, cwd: tree.directory}),
          },
          {
            name: `tree ${tree.label}, logs on`,
            port: 4311 + 2 * index,
            start: () => startOrigin(sampleDataset, {port: 4311 + 2 * index, cwd: tree.directory, logLevel: 'info'}),
          },
        ]),
      ]),
]
const rates = new Map<string, Map<string, number>>()
const perCpuSecond = new Map<string, Map<string, number>>()
const rate = (benchCase: string, server: string) => rates.get(benchCase)?.get(server) ?? Number.NaN

/**
 * Each round starts every server afresh and measures every case on each, alternating servers. On
 * this virtual machine a server's CPU cost per request differs by up to a third between processes
 * started the same way, and drifts within one (measured two at a time on one core, so both saw the
 * same load: one raw node:http process read 16 µs a request, then 23 µs ten minutes later, beside
 * another at 17 to 18 µs). Rounds in fresh processes put that spread into the median instead of
 * leaving every round to one process's luck.
 */
async function measureRounds(roundCases: readonly Case[]): Promise<void> {
  // Each case and server's rounds: requests per second, and requests per CPU-second.
  const rounds = new Map<string, {rates: number[]; perCpu: number[]}>()
  const roundsOf = (benchCase: Case, server: string) => {
    const key = `${benchCase.name}\u0000${server}`
    let measured = rounds.get(key)
    if (!measured) rounds.set(key, (measured = {rates: [], perCpu: []}))
    return measured
  }
  for (let round = 0; round < ROUNDS; round++) {
    const running = await Promise.all(servers.map(async (server) => ({...server, process: await server.start()})))
    for (const benchCase of roundCases) {
      const measured = running.filter((server) => appliesTo(benchCase, server.name))
      const headers = new Map(
        await Promise.all(measured.map(async (server) => [server.name, await benchCase.headers(server.port)] as const)),
      )
      // One uncounted second each first, so the JIT and the case's own caches are as warm as in service
      // (a 1 s quick round measured a cold origin: the list page once read 0.52 of raw node:http).
      // The round's first case is the first load fresh processes see: it warms them longer.
      const warmUpSeconds = benchCase === roundCases[0] ? 1 + ROUND_WARM_UP_SECONDS : 1
      for (const server of measured)
        await wrk(server.port, benchCase.path, headers.get(server.name) ?? {}, warmUpSeconds, benchCase.script)
      // The servers take turns in slices, so a slower spell of the machine falls on all of them
      // rather than on whichever one was being measured (one 3 s run each read the bulk document at
      // 1.39 of raw node:http, and brotli at 0.75, in the same round).
      const totals = new Map(measured.map((server) => [server.name, {requests: 0, seconds: 0, cpu: 0}]))
      for (let slice = 0; slice < SLICES; slice++) {
        for (const server of measured) {
          const cpuBefore = await cpuSeconds(server.process.pid)
          const measurement = await wrk(
            server.port,
            benchCase.path,
            headers.get(server.name) ?? {},
            Math.round(SECONDS / SLICES),
            benchCase.script,
          )
          const cpu = (await cpuSeconds(server.process.pid)) - cpuBefore
          if (measurement.errors > 0)
            throw new Error(`${server.name}: ${measurement.errors} errors on ${benchCase.name}`)
          const total = totals.get(server.name)
          if (!total) continue
          total.requests += measurement.requests
          total.seconds += measurement.requests / measurement.requestsPerSecond
          total.cpu += cpu
        }
      }
      for (const [name, total] of totals) {
        roundsOf(benchCase, name).rates.push(total.requests / total.seconds)
        roundsOf(benchCase, name).perCpu.push(total.requests / total.cpu)
      }
    }
    await Promise.all(running.map((server) => stop(server.process)))
  }
  for (const benchCase of roundCases) {
    const measured = servers.filter((server) => appliesTo(benchCase, server.name))
    rates.set(
      benchCase.name,
      new Map(measured.map((server) => [server.name, median(roundsOf(benchCase, server.name).rates)])),
    )
    perCpuSecond.set(
      benchCase.name,
      new Map(measured.map((server) => [server.name, median(roundsOf(benchCase, server.name).perCpu)])),
    )
    console.log(
      benchCase.name,
      JSON.stringify(
        Object.fromEntries([...(rates.get(benchCase.name) ?? [])].map(([name, value]) => [name, Math.round(value)])),
      ),
    )
    console.log(
      `${benchCase.name} per CPU-second`,
      JSON.stringify(
        Object.fromEntries(
          [...(perCpuSecond.get(benchCase.name) ?? [])].map(([name, value]) => [name, Math.round(value)]),
        ),
      ),
    )
  }
}
// Below in requests per second and in requests per CPU-second: a real regression costs CPU, while a
// neighbour taking the core (a shared CI runner) moves the first but hardly the second.
const belowGuard = (benchCase: Case) =>
  !benchCase.informational &&
  rate(benchCase.name, 'origin, logs off') < GUARD_RATIO * rate(benchCase.name, 'raw node:http') &&
  (perCpuSecond.get(benchCase.name)?.get('origin, logs off') ?? Number.NaN) <
    GUARD_RATIO * (perCpuSecond.get(benchCase.name)?.get('raw node:http') ?? Number.NaN)
await measureRounds(cases)
const failingOnce = QUICK ? cases.filter(belowGuard) : []
if (failingOnce.length > 0) {
  console.log(
    `${failingOnce.map((benchCase) => benchCase.name).join('; ')}: below ${GUARD_RATIO} of raw node:http; measuring once more`,
  )
  await measureRounds(failingOnce)
}

const ratio = (benchCase: string, server: string, baseline: string) => {
  const value = rate(benchCase, server) / rate(benchCase, baseline)
  return Number.isNaN(value) ? '—' : value.toFixed(2)
}
const perCpu = (benchCase: string, server: string) => perCpuSecond.get(benchCase)?.get(server) ?? Number.NaN
const cpuCell = (benchCase: string, server: string) =>
  Number.isNaN(perCpu(benchCase, server)) ? '—' : thousands(perCpu(benchCase, server))
const cpuRatio = (benchCase: string, server: string, baseline: string) => {
  const value = perCpu(benchCase, server) / perCpu(benchCase, baseline)
  return Number.isNaN(value) ? '—' : value.toFixed(2)
}
const rateCell = (benchCase: string, server: string) =>
  Number.isNaN(rate(benchCase, server)) ? '—' : thousands(rate(benchCase, server))

if (QUICK) {
  // The guard: the origin against raw node:http, measured in this run.
  const failing = cases.filter(belowGuard)
  console.log(
    '\n| case | origin, logs off req/s | raw node:http req/s | ratio | ratio per CPU-second |\n|---|---|---|---|---|',
  )
  for (const benchCase of cases) {
    console.log(
      `| ${benchCase.name} | ${rateCell(benchCase.name, 'origin, logs off')} | ${rateCell(benchCase.name, 'raw node:http')} | ${ratio(benchCase.name, 'origin, logs off', 'raw node:http')} | ${cpuRatio(benchCase.name, 'origin, logs off', 'raw node:http')} |`,
    )
  }
  await rm(work, {recursive: true, force: true})
  if (failing.length > 0) {
    console.error(
      `\nbench:http --quick: below ${GUARD_RATIO} of raw node:http (a 2× regression): ${failing.map((benchCase) => benchCase.name).join('; ')}`,
    )
    process.exit(1)
  }
  console.log(`\nbench:http --quick: every case of the origin is at least ${GUARD_RATIO} of raw node:http`)
  process.exit(0)
}

const columns: [string, string, string][] = [
  ['origin (logs off) / raw node:http', 'origin, logs off', 'raw node:http'],
  ['origin (logs on) / origin (logs off)', 'origin, logs on', 'origin, logs off'],
  ['origin (logs on) / raw node:http', 'origin, logs on', 'raw node:http'],
  ["origin (logs off) / raw node:http, Node's defaults", 'origin, logs off', "raw node:http, Node's defaults"],
  ["origin (logs on) / raw node:http, Node's defaults", 'origin, logs on', "raw node:http, Node's defaults"],
  ['origin (logs off) / Fastify', 'origin, logs off', 'Fastify'],
  ['origin (logs on) / Fastify', 'origin, logs on', 'Fastify'],
  ['origin (logs off) / Fastify, same features', 'origin, logs off', 'Fastify, same features'],
  ['origin (logs on) / Fastify, same features', 'origin, logs on', 'Fastify, same features'],
  ['origin (logs off) / plain nginx', 'origin, logs off', 'plain nginx'],
  ['origin (logs on) / nginx with access log', 'origin, logs on', 'plain nginx, access log'],
  ['origin (logs off) / export nginx', 'origin, logs off', 'export nginx'],
]
report.push(
  '## The origin against plain baselines, same bytes',
  '',
  'Requests per second (median of the rounds), and the ratios the issue asks for. — : the case does not apply to that server.',
  '',
  `| case | ${servers.map((server) => server.name).join(' | ')} |`,
  `|---|${servers.map(() => '---').join('|')}|`,
  ...cases.map(
    (benchCase) =>
      `| ${benchCase.name} | ${servers.map((server) => rateCell(benchCase.name, server.name)).join(' | ')} |`,
  ),
  '',
  `| case | ${columns.map(([title]) => title).join(' | ')} |`,
  `|---|${columns.map(() => '---').join('|')}|`,
  ...cases.map(
    (benchCase) =>
      `| ${benchCase.name} | ${columns.map(([, server, baseline]) => ratio(benchCase.name, server, baseline)).join(' | ')} |`,
  ),
  '',
  '### Requests per CPU-second of the server',
  '',
  "The same runs counted against the CPU time the server used (user and system, nginx's worker included): what a request costs each server, which another process on the machine disturbs far less than requests per second.",
  '',
  `| case | ${servers.map((server) => server.name).join(' | ')} |`,
  `|---|${servers.map(() => '---').join('|')}|`,
  ...cases.map(
    (benchCase) =>
      `| ${benchCase.name} | ${servers.map((server) => cpuCell(benchCase.name, server.name)).join(' | ')} |`,
  ),
  '',
  `| case | ${columns.map(([title]) => title).join(' | ')} |`,
  `|---|${columns.map(() => '---').join('|')}|`,
  ...cases.map(
    (benchCase) =>
      `| ${benchCase.name} | ${columns.map(([, server, baseline]) => cpuRatio(benchCase.name, server, baseline)).join(' | ')} |`,
  ),
)

// A CPU profile of the origin (logs off) serving one episode, summarised by self time.
{
  const profileDirectory = PROFILE ? join('bench', 'results', 'profiles') : join(work, 'profiles')
  await mkdir(profileDirectory, {recursive: true})
  const profiled = await startOrigin(sampleDataset, {profileDirectory})
  const measured = await wrk(ORIGIN_PORT, '/api/v1/episodes/ep-3-schema-migrations.json', {
    'Accept-Encoding': 'identity',
  })
  await stop(profiled)
  const top = await summariseProfile(profileDirectory, 18)
  report.push(
    '',
    '## Where the origin spends its time',
    '',
    `A CPU profile (\`--cpu-prof\`) of the origin with logs off serving one episode (${thousands(measured.requestsPerSecond)} req/s while profiled), self time as a share of busy time (idle excluded; start-up included, so module compilation shows).${PROFILE ? ` The profile is in \`${profileDirectory}\`.` : ''}`,
    '',
    '| share | function | where |',
    '|---|---|---|',
    ...top.map((entry) => `| ${entry.share.toFixed(1)}% | ${entry.name} | ${entry.where} |`),
  )
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
  const firstPage = (await (await fetch(`${base}/api/v1/episodes.json`)).json()) as {
    data: {slug: string}[]
    pagination: {next: string | null}
  }
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
  report.push(
    `| ${thousands(size)} | ${thousands(itemRate)} | ${thousands(firstRate)} | ${thousands(laterRate)} | ${rssBefore.toFixed(0)} MiB | ${rssAfter.toFixed(0)} MiB |`,
  )
  console.log(report.at(-1))
  await stop(grown)
}

await mkdir('bench/results', {recursive: true})
await writeFile('bench/results/http.md', `${report.join('\n')}\n`)
await rm(work, {recursive: true, force: true})
console.log('wrote bench/results/http.md')

interface ProfileNode {
  id: number
  callFrame: {functionName: string; url: string; lineNumber: number}
}

/** The functions with the most self time in the one `.cpuprofile` in `directory`. */
async function summariseProfile(
  directory: string,
  count: number,
): Promise<{share: number; name: string; where: string}[]> {
  const {readdir} = await import('node:fs/promises')
  const file = (await readdir(directory)).find((name) => name.endsWith('.cpuprofile'))
  if (!file) return []
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- V8's own .cpuprofile format, read for a summary only
  const profile: {nodes: ProfileNode[]; samples: number[]} = JSON.parse(await readFile(join(directory, file), 'utf8'))
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const selfSamples = new Map<string, number>()
  for (const id of profile.samples) {
    const frame = nodes.get(id)?.callFrame
    if (!frame) continue
    const key = `${frame.functionName || '(anonymous)'}\t${frame.url ? `${frame.url.replace(/^.*\/(node_modules|server|bench)\//, '$1/')}:${frame.lineNumber + 1}` : ''}`
    selfSamples.set(key, (selfSamples.get(key) ?? 0) + 1)
  }
  const busy = [...selfSamples]
    .filter(([key]) => !key.startsWith('(idle)'))
    .reduce((sum, [, samples]) => sum + samples, 0)
  return [...selfSamples]
    .filter(([key]) => !key.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, samples]) => {
      const [name = '', where = ''] = key.split('\t')
      // A profiled regular expression may hold a `|`, which would end a Markdown table cell.
      return {
        share: (100 * samples) / busy,
        name: `\`${name.replaceAll('|', '\\|')}\``,
        where: where ? `\`${where}\`` : 'native / V8',
      }
    })
}
