// npm run bench:edge: the origin behind Varnish (the VCL `npm run edge:vcl` writes), measured.
// 1. Time from a signed webhook to fresh bytes at the edge, for an item, its list and the bulk document.
// 2. Hit ratio at the edge under steady reads while an episode is published every second.
// 3. Requests per second for the bulk document: Varnish with its default parameters, with the
//    recommended ones, the origin alone, and nginx serving the same bytes; each server pinned to
//    CPU 0, wrk on CPU 1. Writes bench/results/edge.md.
import {execFile, spawn} from 'node:child_process'
import {chmod, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {encodeSignatureHeader} from '@sanity/webhook'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {startTestServer} from '../test/helpers/server.ts'
import {startVarnish} from '../test/helpers/varnish.ts'
import {freePort} from '../test/helpers/free-port.ts'
import {waitFor} from './wait-for.ts'

const run = promisify(execFile)
const SECRET = 'a-webhook-secret-of-some-length'
const TOKEN = 'purge-token-for-the-bench'
const EDITS = Number(process.env.BENCH_EDITS ?? 40)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
let documents: SanityDocument[] = [...sample]
const work = await mkdtemp(join(tmpdir(), 'catalog-bench-edge-'))
await chmod(work, 0o755)

const varnishPort = await freePort()
const origin = await startTestServer({
  source: createEmbeddedSource('in-memory sample', async () => documents),
  environment: {SANITY_WEBHOOK_SECRET: SECRET, CDN_PURGE: 'varnish', CDN_PURGE_URLS: `http://127.0.0.1:${varnishPort}/`, CDN_PURGE_TOKEN: TOKEN, RECONCILE_INTERVAL_SECONDS: '0'},
  edge: {retry: {initialDelayMs: 50, maxDelayMs: 500}},
})
const varnish = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN, port: varnishPort})
const edited = sample.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
if (!edited) throw new Error('the sample has no episode')
const slug = /"current":"([^"]+)"/.exec(JSON.stringify(edited))?.[1] ?? ''

async function publish(title: string): Promise<number> {
  documents = documents.map((document) => (document._id === edited?._id ? {...document, title, _updatedAt: new Date().toISOString()} : document))
  const body = JSON.stringify({_id: edited?._id, _type: 'episode'})
  const signature = await encodeSignatureHeader(body, Date.now(), SECRET)
  const sentAt = performance.now()
  const response = await fetch(`${origin.baseUrl}/webhooks/sanity`, {method: 'POST', headers: {'content-type': 'application/json', 'sanity-webhook-signature': signature}, body})
  if (response.status !== 202) throw new Error(`webhook answered ${response.status}`)
  return sentAt
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? Number.NaN

// 1. Webhook to fresh at the edge.
const documentsToWatch = {item: `/api/v1/episodes/${slug}.json`, list: '/api/v1/episodes.json', bulk: '/api/v1/all.json'}
const freshness: Record<keyof typeof documentsToWatch, number[]> = {item: [], list: [], bulk: []}
for (let edit = 0; edit < EDITS; edit += 1) {
  for (const path of Object.values(documentsToWatch)) await fetch(`${varnish.url}${path}`).then((response) => response.arrayBuffer()) // cached before the edit
  const title = `פרק בדיקה ${edit} ${Date.now()}`
  const sentAt = await publish(title)
  await Promise.all(
    Object.entries(documentsToWatch).map(async ([name, path]) => {
      for (;;) {
        if ((await (await fetch(`${varnish.url}${path}`)).text()).includes(title)) break
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
      if (name === 'item' || name === 'list' || name === 'bulk') freshness[name].push(performance.now() - sentAt)
    }),
  )
  await origin.edge?.drained()
}

// 2. Hit ratio while an episode is published every second.
const readPaths = [
  ...origin.store
    .current()
    .paths.slice(0, 60)
    .map((path) => `/api/v1/${path}`),
  '/api/v1/index.json',
  '/llms.txt',
]
let hits = 0
let reads = 0
const until = Date.now() + SECONDS * 1000
const publisher = (async () => {
  for (let second = 0; Date.now() < until; second += 1) {
    await publish(`פרסום ${second} ${Date.now()}`)
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
})()
await Promise.all(
  Array.from({length: 8}, async (_, reader) => {
    for (let index = reader; Date.now() < until; index += 8) {
      const response = await fetch(`${varnish.url}${readPaths[index % readPaths.length]}`)
      await response.arrayBuffer()
      reads += 1
      if (response.headers.get('x-cache') === 'HIT') hits += 1
    }
  }),
)
await publisher
await varnish.stop()

// 3. Throughput for the bulk document, one core each.
async function wrk(url: string): Promise<number> {
  const {stdout} = await run('taskset', ['-c', '1', 'wrk', '-t1', '-c32', `-d${SECONDS}s`, url])
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
}
const bulkPath = '/api/v1/all.json'
const throughput: [string, number][] = []
for (const parameters of ['default', 'recommended'] as const) {
  const pinned = await startVarnish({backends: [new URL(origin.baseUrl).host], token: TOKEN, parameters, cpu: 0})
  await fetch(`${pinned.url}${bulkPath}`, {headers: {'accept-encoding': 'identity'}}).then((response) => response.arrayBuffer())
  throughput.push([`Varnish, ${parameters === 'default' ? 'default parameters' : 'recommended parameters (edge.vcl.params)'}`, await wrk(`${pinned.url}${bulkPath}`)])
  await pinned.stop()
}
await origin.close()

const originPort = await freePort()
const originProcess = spawn('taskset', ['-c', '0', process.execPath, 'server/main.ts'], {
  env: {...process.env, PORT: String(originPort), PUBLIC_BASE_URL: 'http://api.test', RATE_LIMIT_QUOTA: '0', RECONCILE_INTERVAL_SECONDS: '0', LOG_LEVEL: 'silent'},
  stdio: 'ignore',
})
await waitFor(`http://127.0.0.1:${originPort}/api/v1/index.json`)
const identity = Buffer.from(await (await fetch(`http://127.0.0.1:${originPort}${bulkPath}`, {headers: {'accept-encoding': 'identity'}})).arrayBuffer())
throughput.push(['origin alone (node, rate limit off)', await wrk(`http://127.0.0.1:${originPort}${bulkPath}`)])
originProcess.kill('SIGTERM')

await mkdir(join(work, 'root/api/v1'), {recursive: true})
await writeFile(join(work, 'root/api/v1/all.json'), identity)
const nginxPort = await freePort()
await writeFile(
  join(work, 'nginx.conf'),
  `worker_processes 1; pid ${join(work, 'nginx.pid')}; error_log ${join(work, 'error.log')};
events { worker_connections 1024; }
http { access_log off; default_type application/json; server { listen 127.0.0.1:${nginxPort}; root ${join(work, 'root')}; } }
`,
)
const nginx = spawn('taskset', ['-c', '0', 'nginx', '-p', work, '-c', join(work, 'nginx.conf'), '-g', 'daemon off;'], {stdio: 'ignore'})
await waitFor(`http://127.0.0.1:${nginxPort}${bulkPath}`)
throughput.push(['nginx, the same bytes from a file', await wrk(`http://127.0.0.1:${nginxPort}${bulkPath}`)])
nginx.kill('SIGTERM')
await rm(work, {recursive: true, force: true})

const ms = (value: number) => `${value.toFixed(1)} ms`
const report = `# Edge: Varnish in front of the origin

\`npm run bench:edge\` on ${new Date().toISOString().slice(0, 10)}, ${EDITS} edits, ${SECONDS} s per throughput run, on a
2-core machine shared with other work (numbers are indicative; run it again before relying on one).

## Webhook to fresh at the edge

From sending a signed webhook for an episode edit to the first read through Varnish that shows it
(the origin rebuilds, swaps the snapshot, plans the purge and purges Varnish by key).

| Document | p50 | p99 |
|---|---|---|
${Object.entries(freshness)
  .map(
    ([name, values]) => `| ${name} (\`${documentsToWatch[name === 'item' || name === 'list' || name === 'bulk' ? name : 'item']}\`) | ${ms(percentile(values, 50))} | ${ms(percentile(values, 99))} |`,
  )
  .join('\n')}

## Hit ratio while publishing every second

8 readers over ${readPaths.length} documents for ${SECONDS} s, one episode published a second: ${reads} reads,
${hits} hits (${((hits / reads) * 100).toFixed(1)} %). Only the edited item, its list, the bulk
document and the site documents whose bytes changed are purged; the rest stay cached.

## Requests per second, bulk document (${(identity.length / 1024).toFixed(0)} KB, identity), one core

wrk -t1 -c32 on CPU 1, the server on CPU 0; every Varnish request is a hit.

| Server | req/s |
|---|---|
${throughput.map(([name, value]) => `| ${name} | ${Math.round(value).toLocaleString('en-US')} |`).join('\n')}
`
await mkdir('bench/results', {recursive: true})
await writeFile('bench/results/edge.md', report)
process.stdout.write(report)
process.exit(0)
