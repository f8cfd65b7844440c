// npm run loadtest: `npm start` as operators run it (request logs on, rate limiter on with a quota
// the single load generator never reaches) saturated by autocannon on loopback for a minute
// (LOADTEST_SECONDS), with a mix of clients: plain, compressed, revalidating, paging. Memory is
// read from the server's own /metrics every few seconds. Fails on any error, any status other than
// 200/304, or memory that keeps growing. Writes bench/results/loadtest.md.
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {mkdir, writeFile} from 'node:fs/promises'
import {cpus} from 'node:os'
import autocannon from 'autocannon'
import {waitFor} from './wait-for.ts'

const SECONDS = Number(process.env.LOADTEST_SECONDS ?? 60)
const CONNECTIONS = Number(process.env.LOADTEST_CONNECTIONS ?? 50)
const LOG_LEVEL = process.env.LOG_LEVEL ?? 'info'
const PORT = 4311
const base = `http://127.0.0.1:${PORT}`
const EPISODE = '/api/v1/episodes/ep-1-why-we-started.json'

const server = spawn(process.execPath, ['server/main.ts'], {
  env: {
    PATH: process.env.PATH,
    PORT: String(PORT),
    PUBLIC_BASE_URL: 'http://api.test',
    RATE_LIMIT_QUOTA: '1000000000',
    RECONCILE_INTERVAL_SECONDS: '0',
    LOG_LEVEL,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
})
const exited = once(server, 'exit')

async function memory(): Promise<{rss: number; heap: number}> {
  const metrics = await (await fetch(`${base}/metrics`)).text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN)
  return {rss: value('process_resident_memory_bytes'), heap: value('nodejs_heap_size_used_bytes')}
}

await waitFor(`${base}/api/v1/index.json`, 30_000)
const etag = (await fetch(`${base}${EPISODE}`, {headers: {'Accept-Encoding': 'identity'}})).headers.get('etag') ?? ''
const secondPage = (
  (await (await fetch(`${base}/api/v1/episodes.json?limit=10`)).json()) as {pagination?: {next?: string | null}}
).pagination?.next
const requests: autocannon.Request[] = [
  {path: '/api/v1/index.json'},
  {path: EPISODE, headers: {'accept-encoding': 'br, gzip'}},
  {path: EPISODE, headers: {'if-none-match': etag}},
  {path: '/api/v1/all.json', headers: {'accept-encoding': 'gzip'}},
  {path: '/api/v1/episodes.json?limit=10'},
  {path: secondPage ? new URL(secondPage).pathname + new URL(secondPage).search : '/api/v1/meetups.json'},
  {path: '/api/v1/voices.json', headers: {'accept-encoding': 'br'}},
  {path: '/api/v1/sandbox/episodes.json'},
]

const samples: {second: number; rss: number; heap: number}[] = []
const started = Date.now()
const sampler = setInterval(() => {
  memory().then(
    (reading) => samples.push({second: Math.round((Date.now() - started) / 1000), ...reading}),
    () => undefined,
  )
}, 5_000)
const result = await autocannon({url: base, connections: CONNECTIONS, duration: SECONDS, requests})
clearInterval(sampler)
const final = await memory()
samples.push({second: Math.round((Date.now() - started) / 1000), ...final})
server.kill('SIGTERM')
await exited

const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, {count = 0}]) => [status, count] as const)
const unexpected = statuses.filter(([status]) => status !== '200' && status !== '304')
// Stable memory: the second half of the run ends within 10% of where it started (after warm-up).
const half = samples.filter((reading) => reading.second >= SECONDS / 2)
const rssGrowth = half.length > 1 ? ((half.at(-1)?.rss ?? 0) - (half[0]?.rss ?? 0)) / (half[0]?.rss ?? 1) : 0
const failures = [
  ...(result.errors > 0 ? [`${result.errors} connection errors`] : []),
  ...(result.timeouts > 0 ? [`${result.timeouts} timeouts`] : []),
  ...unexpected.map(([status, count]) => `${count} responses with status ${status}`),
  ...(rssGrowth > 0.1 ? [`RSS grew ${(rssGrowth * 100).toFixed(1)}% over the second half`] : []),
]

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`
const report = `# Load test

\`npm run loadtest\`: ${SECONDS} s, ${CONNECTIONS} connections, autocannon on loopback against \`npm start\` (LOG_LEVEL=${LOG_LEVEL}, rate limiter on), ${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPUs.
Request mix, in turn on every connection: ${requests
  .map(
    (request) =>
      `\`${request.path}\`${
        request.headers
          ? ` (${Object.entries(request.headers)
              .map(([name]) => name)
              .join(', ')})`
          : ''
      }`,
  )
  .join(', ')}.

| measure | value |
|---|---|
| requests | ${result.requests.total.toLocaleString('en')} |
| requests/s (mean) | ${Math.round(result.requests.average).toLocaleString('en')} |
| latency p50 / p99 / max | ${result.latency.p50} / ${result.latency.p99} / ${result.latency.max} ms |
| statuses | ${statuses.map(([status, count]) => `${status}: ${count.toLocaleString('en')}`).join(', ')} |
| errors / timeouts | ${result.errors} / ${result.timeouts} |
| RSS over the second half | ${rssGrowth >= 0 ? '+' : ''}${(rssGrowth * 100).toFixed(1)}% |

| second | RSS | V8 heap used |
|---|---|---|
${samples.map((reading) => `| ${reading.second} | ${mib(reading.rss)} | ${mib(reading.heap)} |`).join('\n')}

${failures.length === 0 ? 'Result: no error, every response 200 or 304, memory stable.' : `Result: FAILED: ${failures.join('; ')}.`}
`
await mkdir('bench/results', {recursive: true})
await writeFile('bench/results/loadtest.md', report)
process.stdout.write(report)
if (failures.length > 0) process.exitCode = 1
