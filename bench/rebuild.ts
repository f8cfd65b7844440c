// npm run bench: full rebuild and one-document updates at 1k, 10k and 100k documents, with memory.
// Writes bench/results/rebuild.md. Runs on the embedded source (groq-js) over an in-memory dataset.
import {readFile, writeFile} from 'node:fs/promises'
import {mapCatalog} from '../catalog/v1/catalog.ts'
import {createLinks} from '../catalog/v1/links.ts'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {CATALOG_QUERY} from '../catalog/queries.ts'
import {catalogSnapshotBuilder} from '../server/catalog-builder.ts'
import {createDemandCaches} from '../server/snapshot/demand-caches.ts'
import {buildSnapshot, type Snapshot} from '../server/snapshot/snapshot.ts'
import {growDataset} from '../support/grow-dataset.ts'

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number)
const UPDATES = 7
const gc = globalThis.gc ?? (() => undefined)
const config = loadConfig({PUBLIC_BASE_URL: 'https://api.example.org'})
const links = createLinks(config)
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')

const time = async <T>(work: () => Promise<T> | T): Promise<[T, number]> => {
  const started = performance.now()
  const result = await work()
  return [result, performance.now() - started]
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0)

const rows: string[] = []
for (const size of SIZES) {
  let documents: SanityDocument[] = growDataset(sample, size)
  const source = createEmbeddedSource('bench', () => Promise.resolve(documents))
  const build = catalogSnapshotBuilder({source, config, clock: () => new Date()})

  gc()
  const heapBefore = process.memoryUsage().heapUsed
  const [snapshot, fullMs] = await time(() => build(undefined, {kind: 'all'}))
  snapshot.representation('all.json')
  gc()
  const heapAfter = process.memoryUsage().heapUsed
  const rss = process.memoryUsage().rss
  const [queryMs, mapMs, snapshotMs] = await (async () => {
    const [result, query] = await time(() => source.fetch(CATALOG_QUERY))
    const [catalog, map] = await time(() => mapCatalog(result, {links, feedUrl: config.feedUrl}))
    const [, build] = await time(() =>
      buildSnapshot(
        catalog,
        {
          links,
          index: {apiName: 'bench', feedUrl: config.feedUrl, publicBaseUrl: config.publicBaseUrl},
          caches: createDemandCaches(config.caches),
        },
        undefined,
        new Date(),
      ),
    )
    return [query, map, build]
  })()

  // One-document updates as a webhook triggers them: edit an episode, then build for that id.
  let current: Snapshot = snapshot
  const editTimes: number[] = []
  const episodes = documents.filter((document) => document._type === 'episode')
  for (let round = 0; round < UPDATES; round++) {
    const target = episodes[(round * 7919) % episodes.length]
    if (!target) throw new Error('no episode to edit')
    documents = documents.map((document) =>
      document._id === target._id
        ? {...document, title: `עריכה ${round}`, _updatedAt: new Date().toISOString()}
        : document,
    )
    const [next, took] = await time(() =>
      build(current, {kind: 'documents', documents: new Map([[target._id, 'episodes']])}),
    )
    current = next
    editTimes.push(took)
  }
  const newId = `bench-new-${size}`
  documents = [
    ...documents,
    {
      ...episodes[0],
      _id: newId,
      _type: 'episode',
      slug: {_type: 'slug', current: `bench-new-${size}`},
      publishedAt: '2030-01-01',
    },
  ]
  const [inserted, insertMs] = await time(() =>
    build(current, {kind: 'documents', documents: new Map([[newId, 'episodes']])}),
  )
  // all.json is built lazily, right after the swap (not inside the build above): time it apart.
  const [, bulkMs] = await time(() => inserted.representation('all.json'))
  const itemCount = snapshot.counts.episodes + snapshot.counts.meetups + snapshot.counts.voices
  const bulkBytes = snapshot.representation('all.json')?.body.length ?? 0
  rows.push(
    `| ${documents.length.toLocaleString('en')} | ${itemCount.toLocaleString('en')} | ${ms(fullMs)} | ${ms(queryMs)} / ${ms(mapMs)} / ${ms(snapshotMs)} | ${ms(median(editTimes))} | ${ms(insertMs)} | ${ms(bulkMs)} | ${mib(heapAfter - heapBefore)} | ${mib(rss)} | ${mib(bulkBytes)} |`,
  )
  console.log(rows.at(-1))
}

const report = `# Rebuild benchmark

\`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${(await import('node:os')).cpus().length} cores.
Embedded source (groq-js) over an in-memory dataset grown from the sample by \`support/grow-dataset.ts\`.

- **full**: one full build (CATALOG_QUERY, mapping and validation, snapshot), in ms; then the same split into query / map / snapshot.
- **edit**: median of ${UPDATES} one-document builds as a webhook triggers them (an edited episode: per-document GROQ query, catalog patch, snapshot reusing every unchanged item), in ms.
- **insert**: one build for a newly published episode, in ms.
- **bulk**: building all.json for the new snapshot, in ms. It is not part of *edit* or *insert*: the store builds it right after the swap, off the request path (a request that comes first builds it).
- **heap**: heap retained by one full catalog and snapshot (dataset excluded, all.json included), MiB; **rss**: process RSS then, MiB; **bulk**: size of all.json, MiB.

| documents | items | full ms | query / map / snapshot ms | edit ms | insert ms | bulk ms | heap MiB | rss MiB | bulk MiB |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`
await writeFile('bench/results/rebuild.md', report)
console.log('\nwritten to bench/results/rebuild.md')
