// npm run soak: what a server that runs for months accumulates, measured after GC.
// 1. Rebuilds of the sample through the real store and builder (full re-reads and one-document
//    updates, each with its bulk and site documents warmed): heap + external memory must stay flat.
// 2. The page cache at about 3k documents, filled by 10k distinct cursors: it must stay under its bound.
// Writes bench/results/soak.md. SOAK_REBUILDS sets the number of rebuilds (default 10,000).
import {readFile, writeFile} from 'node:fs/promises'
import {cpus} from 'node:os'
import {encodeCursor} from '../server/api/v1/cursor.ts'
import {episodeOrder} from '../catalog/v1/order.ts'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {createCatalogBuilder} from '../server/catalog-builder.ts'
import {createDemandCaches} from '../server/snapshot/demand-caches.ts'
import {createSnapshotStore} from '../server/snapshot/store.ts'
import {growDataset} from '../support/grow-dataset.ts'

const REBUILDS = Number(process.env.SOAK_REBUILDS ?? 10_000)
const CURSORS = Number(process.env.SOAK_CURSORS ?? 10_000)
const PAGE_CACHE_MEGABYTES = 32
const gcOrFail = globalThis.gc
if (!gcOrFail) throw new Error('run with node --expose-gc (npm run soak does)')
const gc = gcOrFail

const config = loadConfig({
  PUBLIC_BASE_URL: 'https://api.example.org',
  PAGE_CACHE_MEGABYTES: String(PAGE_CACHE_MEGABYTES),
})
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const settle = () => new Promise((resolve) => setImmediate(resolve))
const retained = async () => {
  await settle() // lets the warm-up the builder schedules after each build run
  gc()
  await settle()
  gc()
  const {heapUsed, external, arrayBuffers, rss} = process.memoryUsage()
  return {heapUsed, external, arrayBuffers, rss, total: heapUsed + external}
}

// Part 1: rebuilds. Every round edits one episode's title, so every build makes a new snapshot.
let documents: SanityDocument[] = sample
const episodeIds = sample
  .filter((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))
  .map((document) => document._id)
const source = createEmbeddedSource('soak', () => Promise.resolve(documents))
const store = await createSnapshotStore(createCatalogBuilder({source, config, clock: () => new Date()}).build)
const edit = async (round: number) => {
  const id = episodeIds[round % episodeIds.length] ?? ''
  documents = documents.map((document) =>
    document._id === id ? {...document, title: `פרק בעריכה ${round}`, _updatedAt: new Date().toISOString()} : document,
  )
  await (round % 2 === 0 ? store.refresh() : store.refresh([{documentId: id, collection: 'episodes'}]))
}

const WARM_UP = Math.min(200, REBUILDS)
for (let round = 0; round < WARM_UP; round++) await edit(round)
const baseline = await retained()
const samples: {rebuilds: number; total: number; rss: number}[] = [
  {rebuilds: WARM_UP, total: baseline.total, rss: baseline.rss},
]
const started = performance.now()
for (let round = WARM_UP; round < REBUILDS; round++) {
  await edit(round)
  if ((round + 1) % Math.max(1, Math.floor(REBUILDS / 10)) === 0 || round + 1 === REBUILDS) {
    const now = await retained()
    samples.push({rebuilds: round + 1, total: now.total, rss: now.rss})
    console.log(`${round + 1} rebuilds: heap + external ${mib(now.total)} MiB, rss ${mib(now.rss)} MiB`)
  }
}
const rebuildSeconds = (performance.now() - started) / 1000
const final = await retained()
const growth = final.total - baseline.total
store.close()

// Part 2: the page cache at ~3k documents, with distinct cursors (every item's key) and limits.
const grown = growDataset(sample, 3000)
const caches = createDemandCaches(config.caches)
const pageCache = caches.pages
const bigStore = await createSnapshotStore(
  createCatalogBuilder({
    source: createEmbeddedSource('soak 3k', () => Promise.resolve(grown)),
    config,
    clock: () => new Date(),
    caches,
  }).build,
)
const snapshot = bigStore.current()
const keys = snapshot.catalog.episodes.map((entry) => episodeOrder.key(entry.value))
const limits = [1, 10, 50, 100, 250, 500]
const beforeCursors = await retained()
const cacheSizes: number[] = []
let served = 0
for (let request = 0; request < CURSORS; request++) {
  const key = keys[Math.floor(request / limits.length) % keys.length]
  const limit = limits[request % limits.length] ?? 100
  if (!key) throw new Error('no episode keys')
  const page = snapshot.listPage('episodes', {limit, cursor: encodeCursor(key)})
  if (!page.ok) throw new Error(page.reason)
  if (request % 3 === 0) await page.representation.precompress() // as brotli and gzip clients would
  served += page.representation.body.length
  if ((request + 1) % 1000 === 0) cacheSizes.push(pageCache.calculatedSize)
}
const afterCursors = await retained()
const bound = config.caches.pageCacheBytes
const largestCache = Math.max(...cacheSizes)
bigStore.close()

const rows = samples.map(
  (sample) => `| ${sample.rebuilds.toLocaleString('en')} | ${mib(sample.total)} | ${mib(sample.rss)} |`,
)
const report = `# Soak benchmark

\`npm run soak\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores. Memory is read after two full GCs.

## Rebuilds

${REBUILDS.toLocaleString('en')} rebuilds of the sample dataset through the snapshot store and the real builder, alternating a full
re-read and a one-document update, each editing one episode (so every build makes a new snapshot),
each with its bulk and site documents built and compressed. ${rebuildSeconds.toFixed(0)} s in all
(${((rebuildSeconds * 1000) / Math.max(1, REBUILDS - WARM_UP)).toFixed(1)} ms a rebuild).

| rebuilds | heap + external MiB | rss MiB |
|---|---|---|
${rows.join('\n')}

Growth of heap + external from rebuild ${WARM_UP} to ${REBUILDS.toLocaleString('en')}: **${mib(growth)} MiB** (goal: under 10 MiB).

## Page cache at ${snapshot.counts.episodes + snapshot.counts.meetups + snapshot.counts.voices} documents

${CURSORS.toLocaleString('en')} list pages of episodes, each with a distinct cursor or limit (limits ${limits.join(', ')}),
a third of them compressed in brotli and gzip as those clients would ask. ${mib(served)} MiB of pages served.

| bound (PAGE_CACHE_MEGABYTES) | largest cache size seen | heap + external before | after |
|---|---|---|---|
| ${mib(bound)} MiB | ${mib(largestCache)} MiB | ${mib(beforeCursors.total)} MiB | ${mib(afterCursors.total)} MiB |
`
await writeFile('bench/results/soak.md', report)
console.log(report)
if (growth > 10 * 1024 * 1024 || largestCache > bound) {
  console.error('soak failed: memory grew by more than 10 MiB, or the page cache passed its bound')
  process.exit(1)
}
