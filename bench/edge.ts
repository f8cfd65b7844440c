// npm run bench:edge: the origin behind Varnish (the VCL `npm run edge:vcl` writes), measured.
// 1. Time from a signed webhook to fresh bytes at the edge, for an item, its list and the bulk
//    document, at 1k and 100k documents; reads after the first fresh one that are stale again; and
//    documents the edit did not touch that Varnish fetched again.
// 2. Hit ratio at the edge under steady reads while an episode is published every second.
// 3. Requests per second for one episode, the bulk document and a 304: Varnish with its default
//    parameters, with the recommended ones, the origin alone, and nginx serving the same bytes;
//    each server pinned to CPU 0, wrk on CPU 1. Writes bench/results/edge.md.
import {execFile, spawn} from 'node:child_process'
import {chmod, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {encodeSignatureHeader} from '@sanity/webhook'
import {z} from 'zod'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {startTestServer, type TestServer} from '../support/server.ts'
import {startVarnish, type RunningVarnish} from '../support/varnish.ts'
import {freePort} from '../support/free-port.ts'
import {growDataset} from '../support/grow-dataset.ts'
import {waitFor} from './wait-for.ts'

const run = promisify(execFile)
const SECRET = 'a-webhook-secret-of-some-length'
const TOKEN = 'purge-token-for-the-bench'
const EDITS = Number(process.env.BENCH_EDITS ?? 40)
const LARGE_EDITS = Number(process.env.BENCH_LARGE_EDITS ?? 10)
const SIZES = (process.env.BENCH_SIZES ?? '1000,100000').split(',').filter(Boolean).map(Number)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6)
/** Reads of each document after the first fresh one, each checked for the old bytes. */
const READS_AFTER_FRESH = 20
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
const work = await mkdtemp(join(tmpdir(), 'catalog-bench-edge-'))
await chmod(work, 0o755)

interface EdgeUnderTest {
  origin: TestServer
  varnish: RunningVarnish
  /** Publishes the edited episode under `title`; resolves with when the webhook was sent. */
  publish(title: string): Promise<number>
  slug: string
  close(): Promise<void>
}

async function edgeOver(initial: SanityDocument[]): Promise<EdgeUnderTest> {
  let documents = initial
  const varnishPort = await freePort()
  const origin = await startTestServer({
    source: createEmbeddedSource('in-memory catalog', () => Promise.resolve(documents)),
    environment: {
      SANITY_WEBHOOK_SECRET: SECRET,
      CDN_PURGE: 'varnish',
      CDN_PURGE_URLS: `http://127.0.0.1:${varnishPort}/`,
      CDN_PURGE_TOKEN: TOKEN,
      RECONCILE_INTERVAL_SECONDS: '0',
    },
    edge: {retry: {initialDelayMs: 50, maxDelayMs: 500}},
  })
  // Room for the bulk document (about 120 MB at 100k documents) and everything else, twice over.
  const varnish = await startVarnish({
    backends: [new URL(origin.baseUrl).host],
    token: TOKEN,
    port: varnishPort,
    storageMiB: 1024,
  })
  // The origin's start purges everything (it cannot know what the edge holds), and Varnish was not
  // listening yet: until that purge's retry has landed, it can empty the cache in the middle of the
  // first edit's measurement (16 of 20 untouched items read as refetched after edit 0 in one run).
  await origin.edge?.drained()
  // Measured once the start's own work is over, as bench:scale waits for a settled server: the site
  // documents compressed after the start (seconds of CPU at 100k) made a first edit in their midst
  // take 1,171 ms against 231 to 522 for the nine after it.
  await origin.store.current().warm()
  // The newest episode: its edit changes its item, the first page of the list and the bulk document.
  const newest = z
    .object({data: z.array(z.object({slug: z.string()})).min(1)})
    .parse(await (await fetch(`${origin.baseUrl}/api/v1/episodes.json?limit=1`)).json()).data[0]?.slug
  const edited = initial.find(
    (document) =>
      document._type === 'episode' &&
      !document._id.startsWith('drafts.') &&
      JSON.stringify(document.slug).includes(`"${newest}"`),
  )
  if (!edited || !newest) throw new Error('the dataset has no episode')
  return {
    origin,
    varnish,
    slug: newest,
    async publish(title) {
      documents = documents.map((document) =>
        document._id === edited._id ? {...document, title, _updatedAt: new Date().toISOString()} : document,
      )
      const body = JSON.stringify({_id: edited._id, _type: 'episode'})
      const signature = await encodeSignatureHeader(body, Date.now(), SECRET)
      const sentAt = performance.now()
      const response = await fetch(`${origin.baseUrl}/webhooks/sanity`, {
        method: 'POST',
        headers: {'content-type': 'application/json', 'sanity-webhook-signature': signature},
        body,
      })
      if (response.status !== 202) throw new Error(`webhook answered ${response.status}`)
      return sentAt
    },
    async close() {
      await varnish.stop()
      await origin.close()
    },
  }
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? Number.NaN
/** HEAD through Varnish: the ETag names the bytes (the bulk document at 100k is 100 MB, too large to poll whole). */
const headAt = async (url: string) => {
  const response = await fetch(url, {method: 'HEAD', headers: {'accept-encoding': 'identity'}})
  return {etag: response.headers.get('etag'), cache: response.headers.get('x-cache')}
}

// 1. Webhook to fresh at the edge, at each size.
interface Freshness {
  documents: number
  edits: number
  item: number[]
  list: number[]
  bulk: number[]
  staleAfterFresh: number
  untouchedRefetched: number
  untouchedChecked: number
}
const freshnessRows: Freshness[] = []
let hitRatio = {reads: 0, hits: 0, documents: 0, failed: new Map<string, number>()}
for (const size of SIZES) {
  const edge = await edgeOver(growDataset(sample, size))
  const documentsToWatch = {
    item: `/api/v1/episodes/${edge.slug}.json`,
    list: '/api/v1/episodes.json',
    bulk: '/api/v1/all.json',
  }
  // Untouched by the edit: items of other episodes and of voices, read before each edit and after its purge.
  const untouched = edge.origin.store
    .current()
    .paths.filter((path) => /^(episodes|voices)\//.test(path) && !path.includes(edge.slug))
    .slice(0, 20)
    .map((path) => `/api/v1/${path}`)
  const row: Freshness = {
    documents: size,
    edits: size > 10_000 ? LARGE_EDITS : EDITS,
    item: [],
    list: [],
    bulk: [],
    staleAfterFresh: 0,
    untouchedRefetched: 0,
    untouchedChecked: 0,
  }
  for (let edit = 0; edit < row.edits; edit += 1) {
    const before = new Map<string, string | null>()
    for (const path of [...Object.values(documentsToWatch), ...untouched]) {
      await headAt(`${edge.varnish.url}${path}`)
      before.set(path, (await headAt(`${edge.varnish.url}${path}`)).etag) // cached before the edit
    }
    const sentAt = await edge.publish(`פרק בדיקה ${edit} ${Date.now()}`)
    await Promise.all(
      (['item', 'list', 'bulk'] as const).map(async (name) => {
        const url = `${edge.varnish.url}${documentsToWatch[name]}`
        for (
          const giveUpAt = performance.now() + 30_000;
          (await headAt(url)).etag === before.get(documentsToWatch[name]);
          await new Promise((resolve) => setTimeout(resolve, 2))
        ) {
          if (performance.now() > giveUpAt)
            throw new Error(`${name} (${url}) was not fresh at the edge 30 s after the webhook`)
        }
        row[name].push(performance.now() - sentAt)
        if (process.env.BENCH_DEBUG)
          console.log(`${size} edit ${edit}: ${name} fresh after ${Math.round(performance.now() - sentAt)} ms`)
        for (let read = 0; read < READS_AFTER_FRESH; read += 1)
          if ((await headAt(url)).etag === before.get(documentsToWatch[name])) row.staleAfterFresh += 1
      }),
    )
    await edge.origin.edge?.drained()
    for (const path of untouched) {
      row.untouchedChecked += 1
      if ((await headAt(`${edge.varnish.url}${path}`)).cache !== 'HIT') row.untouchedRefetched += 1
    }
  }
  freshnessRows.push(row)

  // 2. Hit ratio while an episode is published every second (at the smallest size, and only up to
  // 10k: at 100k its readers fetch the 100 MB bulk document anew after every publish).
  if (size === SIZES[0] && size <= 10_000) {
    const readPaths = [
      ...edge.origin.store
        .current()
        .paths.slice(0, 60)
        .map((path) => `/api/v1/${path}`),
      '/api/v1/index.json',
      '/llms.txt',
    ]
    // Steady reads: each document is in the edge's cache before the count starts, so a miss is a publish's doing.
    for (const path of readPaths) await fetch(`${edge.varnish.url}${path}`).then((answer) => answer.arrayBuffer())
    let [hits, reads] = [0, 0]
    // A read the edge cut short is counted by document and reason, not thrown: it is a finding.
    const failed = new Map<string, number>()
    const until = Date.now() + SECONDS * 1000
    const publisher = (async () => {
      for (let second = 0; Date.now() < until; second += 1) {
        await edge.publish(`פרסום ${second} ${Date.now()}`)
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    })()
    await Promise.all(
      Array.from({length: 8}, async (_, reader) => {
        for (let index = reader; Date.now() < until; index += 8) {
          const path = readPaths[index % readPaths.length] ?? '/'
          const response = await fetch(`${edge.varnish.url}${path}`)
            .then(async (answer) => (await answer.arrayBuffer(), answer))
            .catch((error: unknown) => {
              const reason = `${path}: ${String(error)}${error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : ''}`
              failed.set(reason, (failed.get(reason) ?? 0) + 1)
              return undefined
            })
          reads += 1
          if (!response) continue
          if (response.headers.get('x-cache') === 'HIT') hits += 1
        }
      }),
    )
    await publisher
    hitRatio = {reads, hits, documents: readPaths.length, failed}
  }
  await edge.close()
}

// 3. Throughput, one core each: one episode, the bulk document and a 304 for the episode.
async function wrk(url: string, headers: Record<string, string> = {}): Promise<number> {
  const {stdout} = await run('taskset', [
    '-c',
    '1',
    'wrk',
    '-t1',
    '-c32',
    `-d${SECONDS}s`,
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    url,
  ])
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1])
}
const originPort = await freePort()
const originProcess = spawn('taskset', ['-c', '0', process.execPath, 'server/main.ts'], {
  env: {
    ...process.env,
    PORT: String(originPort),
    PUBLIC_BASE_URL: 'http://api.test',
    RATE_LIMIT_QUOTA: '0',
    RECONCILE_INTERVAL_SECONDS: '0',
    LOG_LEVEL: 'silent',
  },
  stdio: 'ignore',
})
const originUrl = `http://127.0.0.1:${originPort}`
await waitFor(`${originUrl}/api/v1/index.json`)
const episodeSlug =
  /"current":"([^"]+)"/.exec(
    JSON.stringify(sample.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))),
  )?.[1] ?? ''
const cases = {episode: `/api/v1/episodes/${episodeSlug}.json`, bulk: '/api/v1/all.json'}
const sizes = {
  episode: (
    await (await fetch(`${originUrl}${cases.episode}`, {headers: {'accept-encoding': 'identity'}})).arrayBuffer()
  ).byteLength,
  bulk: (await (await fetch(`${originUrl}${cases.bulk}`, {headers: {'accept-encoding': 'identity'}})).arrayBuffer())
    .byteLength,
}
type ThroughputRow = {server: string; episode: number; bulk: number; notModified: number}
const throughput: ThroughputRow[] = []
/** One episode, the bulk document, and a 304 for the episode with the ETag `baseUrl` gives it. */
async function measureAt(server: string, baseUrl: string) {
  const etag =
    (await fetch(`${baseUrl}${cases.episode}`, {headers: {'accept-encoding': 'identity'}})).headers.get('etag') ?? ''
  for (const path of Object.values(cases))
    await fetch(`${baseUrl}${path}`, {headers: {'accept-encoding': 'identity'}}).then((response) =>
      response.arrayBuffer(),
    )
  throughput.push({
    server,
    episode: await wrk(`${baseUrl}${cases.episode}`),
    bulk: await wrk(`${baseUrl}${cases.bulk}`),
    notModified: await wrk(`${baseUrl}${cases.episode}`, {'If-None-Match': etag}),
  })
}
for (const parameters of ['default', 'recommended'] as const) {
  const pinned = await startVarnish({backends: [`127.0.0.1:${originPort}`], token: TOKEN, parameters, cpu: 0})
  await measureAt(
    `Varnish, ${parameters === 'default' ? 'default parameters' : 'recommended parameters (edge.vcl.params)'}`,
    pinned.url,
  )
  await pinned.stop()
}
await measureAt('origin alone (node, rate limit off)', originUrl)
const root = join(work, 'root')
for (const path of Object.values(cases)) {
  await mkdir(join(root, path, '..'), {recursive: true})
  await writeFile(
    join(root, path),
    Buffer.from(await (await fetch(`${originUrl}${path}`, {headers: {'accept-encoding': 'identity'}})).arrayBuffer()),
  )
}
originProcess.kill('SIGTERM')
const nginxPort = await freePort()
await writeFile(
  join(work, 'nginx.conf'),
  `worker_processes 1; pid ${join(work, 'nginx.pid')}; error_log ${join(work, 'error.log')};
events { worker_connections 1024; }
http { access_log off; default_type application/json; server { listen 127.0.0.1:${nginxPort}; root ${root}; } }
`,
)
const nginx = spawn('taskset', ['-c', '0', 'nginx', '-p', work, '-c', join(work, 'nginx.conf'), '-g', 'daemon off;'], {
  stdio: 'ignore',
})
await waitFor(`http://127.0.0.1:${nginxPort}${cases.bulk}`)
await measureAt('nginx, the same bytes from files', `http://127.0.0.1:${nginxPort}`)
nginx.kill('SIGTERM')
await rm(work, {recursive: true, force: true})

const ms = (value: number) => `${Math.round(value)} ms`
const count = (value: number) => Math.round(value).toLocaleString('en-US')
const nginxRow = throughput.find((row) => row.server.startsWith('nginx'))
const recommended = throughput.find((row) => row.server.includes('recommended'))
const ofNginx = (row: ThroughputRow | undefined, key: 'episode' | 'bulk' | 'notModified') =>
  row && nginxRow ? (row[key] / nginxRow[key]).toFixed(2) : '—'
const report = `# Edge: Varnish in front of the origin

\`npm run bench:edge\` on ${new Date().toISOString().slice(0, 10)}, on a 2-core machine (numbers are indicative; run it again before relying on one).

## Webhook to fresh at the edge

From sending a signed webhook for an episode edit to the first \`HEAD\` through Varnish whose ETag
is the new one (the origin rebuilds, swaps the snapshot, plans the purge and purges Varnish by
key; the bulk document is never polled whole, it is 100 MB at 100k documents). The origin runs in
the benchmark's process, which also polls. **stale after fresh**: of ${READS_AFTER_FRESH} reads of each
watched document right after its first fresh one, those that had the old ETag again.
**untouched refetched**: of 20 other items read before each edit, those Varnish did not answer
from its cache after the purge.

| documents | edits | item p50 | item p99 | list p50 | list p99 | bulk p50 | bulk p99 | stale after fresh | untouched refetched |
|---|---|---|---|---|---|---|---|---|---|
${freshnessRows
  .map(
    (row) =>
      `| ${count(row.documents)} | ${row.edits} | ${ms(percentile(row.item, 50))} | ${ms(percentile(row.item, 99))} | ${ms(percentile(row.list, 50))} | ${ms(percentile(row.list, 99))} | ${ms(percentile(row.bulk, 50))} | ${ms(percentile(row.bulk, 99))} | ${row.staleAfterFresh} of ${row.edits * 3 * READS_AFTER_FRESH} | ${row.untouchedRefetched} of ${row.untouchedChecked} |`,
  )
  .join('\n')}

## Hit ratio while publishing every second

${
  hitRatio.reads === 0
    ? `Not measured: the first size (${count(SIZES[0] ?? 0)} documents) is over 10,000.`
    : `8 readers over ${hitRatio.documents} documents (each read once through the edge before the count starts) for ${SECONDS} s at ${count(SIZES[0] ?? 0)} documents, one episode published a second: ${hitRatio.reads} reads,
${hitRatio.hits} hits (${((hitRatio.hits / hitRatio.reads) * 100).toFixed(1)} %). Only the edited item, its list, the bulk
document and the site documents whose bytes changed are purged; the rest stay cached. Reads that failed: ${
        hitRatio.failed.size === 0
          ? 'none'
          : [...hitRatio.failed].map(([reason, times]) => `${times} × ${reason}`).join('; ')
      }.`
}

## Requests per second, one core

The sample catalog, identity: one episode (${(sizes.episode / 1024).toFixed(1)} KB), the bulk document (${(sizes.bulk / 1024).toFixed(0)} KB), and a
304 for the episode (\`If-None-Match\` with the ETag each server gives it). wrk -t1 -c32 on CPU 1,
${SECONDS} s, the server on CPU 0; every Varnish request is a hit.

| Server | one episode | bulk document | 304 |
|---|---|---|---|
${throughput.map((row) => `| ${row.server} | ${count(row.episode)} | ${count(row.bulk)} | ${count(row.notModified)} |`).join('\n')}
| Varnish (recommended) / nginx | ${ofNginx(recommended, 'episode')} | ${ofNginx(recommended, 'bulk')} | ${ofNginx(recommended, 'notModified')} |
`
await mkdir('bench/results', {recursive: true})
await writeFile('bench/results/edge.md', report)
process.stdout.write(report)
process.exit(0)
