// npm run bench:scale: `npm start` at 1k, 10k and 100k documents through both sources (the dataset
// file, and @sanity/client against a local stand-in of the query API): time to the first 200,
// peak RSS, publish-to-visible for an episode edit, a new episode and a voice edit (each announced
// by a signed webhook on a settled server), a warm restart, and throughput for one item. Writes bench/results/scale.md.
import {catalogVersionAt} from '../support/catalog-version.ts'
import {readFile} from 'node:fs'
import {mkdtemp, readFile as readFileAsync, rename, rm, writeFile} from 'node:fs/promises'
import {cpus, tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import autocannon from 'autocannon'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {startSanityStandIn} from '../support/sanity-stand-in.ts'
import {growDataset} from '../support/grow-dataset.ts'
import {deliverWebhook, sleep, startServerProcess, waitUntil, type ServerProcess} from './server-process.ts'

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number)
const SOURCES = (process.env.BENCH_SOURCES ?? 'file,sanity').split(',')
const SECRET = 'bench-webhook-secret-0123456789'
const PUBLISH_ROUNDS = 3
const SETTLE_MS = 20_000
const THROUGHPUT_SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
// How far ahead an episode is scheduled: its webhook's build must settle before then, which a busy machine can take longer than 5 s to do.
const RELEASE_AHEAD_MS = Number(process.env.BENCH_RELEASE_AHEAD_MS ?? 5000)
const sample = parseNdjson(await readFileAsync('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
const readStatus = promisify(readFile)

/** `npm start`'s process, with the Node options BENCH_SERVER_NODE_OPTIONS names. */
const startServer = (environment: Record<string, string>) =>
  startServerProcess({NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS ?? '', ...environment})
const deliver = (server: ServerProcess, document: {_id: string; _type: string}) =>
  deliverWebhook(server, document, SECRET)

async function peakRssMiB(server: ServerProcess): Promise<number> {
  const status = await readStatus(`/proc/${server.child.pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024
}

/** Settles, publishes (`publish` puts the change where the source reads it), then times from the publish until `GET path` shows `expected`. */
async function publishToVisible(
  server: ServerProcess,
  publish: () => Promise<void>,
  document: {_id: string; _type: string},
  path: string,
  expected: string,
): Promise<number> {
  await server.settled(SETTLE_MS)
  await publish()
  const started = performance.now()
  await deliver(server, document)
  for (;;) {
    const response = await fetch(`${server.baseUrl}${path}`)
    if (response.ok && (await response.text()).includes(expected)) return performance.now() - started
    if (performance.now() - started > 120_000) throw new Error(`${path} never showed ${expected}`)
    await sleep(2)
  }
}

/** As publishToVisible, for a document too large to poll whole (the feed): until `HEAD path` answers another ETag than before the publish. */
async function publishToNewEtag(
  server: ServerProcess,
  publish: () => Promise<void>,
  document: {_id: string; _type: string},
  path: string,
): Promise<number> {
  await server.settled(SETTLE_MS)
  const before = await etagOf(server, path)
  await publish()
  const started = performance.now()
  await deliver(server, document)
  for (;;) {
    if ((await etagOf(server, path)) !== before) return performance.now() - started
    if (performance.now() - started > 120_000) throw new Error(`${path} never changed`)
    await sleep(2)
  }
}

const etagOf = async (server: ServerProcess, path: string) =>
  (await fetch(`${server.baseUrl}${path}`, {method: 'HEAD', headers: {'accept-encoding': 'identity'}})).headers.get(
    'etag',
  )

/**
 * Schedules an episode a few seconds ahead (announced by its webhook, so the server knows its time)
 * and times from its release time until both the first page of the list and the feed show it, with
 * no webhook at that time: the server's own release timer does it.
 */
async function releaseToVisible(
  server: ServerProcess,
  schedule: (releaseAt: Date) => Promise<SanityDocument>,
  slug: string,
): Promise<number> {
  await server.settled(SETTLE_MS)
  const releaseAt = Date.now() + RELEASE_AHEAD_MS
  await deliver(server, await schedule(new Date(releaseAt)))
  await server.settled(SETTLE_MS)
  const feedBefore = await etagOf(server, '/feed.xml')
  const early = await fetch(`${server.baseUrl}/api/v1/episodes/${slug}.json`)
  if (Date.now() >= releaseAt) throw new Error('the release time passed before the server had settled')
  if (early.status !== 404) throw new Error(`a scheduled episode answered ${early.status} before its time`)
  for (let listed = false, inFeed = false; ;) {
    listed ||= (await (await fetch(`${server.baseUrl}/api/v1/episodes.json`)).text()).includes(`"slug":"${slug}"`)
    inFeed ||= (await etagOf(server, '/feed.xml')) !== feedBefore
    if (listed && inFeed) return Date.now() - releaseAt
    if (Date.now() - releaseAt > 120_000) throw new Error(`${slug} was never released`)
    await sleep(2)
  }
}

async function throughput(server: ServerProcess, path: string): Promise<number> {
  // A second of warm-up first: the item's first compression and the JIT are not throughput.
  await autocannon({url: `${server.baseUrl}${path}`, connections: 32, duration: 1, headers: {'accept-encoding': 'br'}})
  const result = await autocannon({
    url: `${server.baseUrl}${path}`,
    connections: 32,
    duration: THROUGHPUT_SECONDS,
    headers: {'accept-encoding': 'br'},
  })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(
      `${path}: ${result.non2xx} answers other than 2xx and ${result.errors} errors in the throughput run`,
    )
  return result.requests.average
}

/**
 * One search's answer time: the first one makes the catalog's index, in the background past a few
 * thousand documents (a 503 with Retry-After meanwhile), so this is the time until a search is answered.
 */
async function timedSearch(server: ServerProcess, query: string): Promise<number> {
  const started = performance.now()
  for (;;) {
    const response = await fetch(`${server.baseUrl}/api/v1/search.json?q=${encodeURIComponent(query)}`)
    await response.arrayBuffer()
    if (response.ok) return performance.now() - started
    if (response.status !== 503) throw new Error(`search.json answered ${response.status}`)
    await sleep(20)
  }
}

const slugOf = (document: SanityDocument) => {
  const slug = document.slug
  return typeof slug === 'object' && slug !== null && 'current' in slug ? String(slug.current) : ''
}

interface Row {
  source: string
  documents: number
  cold: number
  warm: number | undefined
  rss: number
  edit: number[]
  insert: number[]
  voice: number[]
  feed: number[]
  release: number[]
  firstSearch: number
  searchAfterEdit: number
  /** `changes.json?since=` for one edit, and `all.json`, in identity bytes. */
  deltaBytes: number
  allBytes: number
  chapters: number[]
  /** The feed's identity bytes (HEAD's Content-Length). */
  feedBytes: number
  requests: number
}

const rows: Row[] = []
const folder = await mkdtemp(join(tmpdir(), 'bench-scale-'))
try {
  for (const size of SIZES) {
    const grown = growDataset(sample, size)
    for (const sourceName of SOURCES) {
      let documents: SanityDocument[] = grown
      const datasetFile = join(folder, `catalog-${size}.ndjson`)
      // Replaced whole, as an export does: the watcher never sees half a file.
      const writeDataset = async () => {
        await writeFile(`${datasetFile}.next`, `${documents.map((document) => JSON.stringify(document)).join('\n')}\n`)
        await rename(`${datasetFile}.next`, datasetFile)
      }
      await writeDataset()
      const standIn =
        sourceName === 'sanity' ? await startSanityStandIn(() => documents, {dataset: 'production'}) : undefined
      const environment = {
        SANITY_WEBHOOK_SECRET: SECRET,
        // Every request counted, none refused: at the default 600 a minute, the req/s column measured 429s.
        RATE_LIMIT_QUOTA: '1000000000',
        SNAPSHOT_DIR: join(folder, `snapshots-${sourceName}-${size}`),
        ...(standIn
          ? {SANITY_PROJECT_ID: 'bench', SANITY_DATASET: 'production', SANITY_API_HOST: standIn.apiHost}
          : {DATASET_FILE: datasetFile}),
      }
      try {
        // Cold: a full read, saved to SNAPSHOT_DIR once served; warm: a restart over the same content.
        const first = await startServer(environment)
        const cold = first.firstOkMs
        await waitUntil(() => /saved the snapshot/.test(first.server.output()), 120_000)
        const coldRss = await peakRssMiB(first.server)
        await first.server.stop()
        const {server, firstOkMs} = await startServer(environment)
        // The saved snapshot is served first; the log says it was reused once the source's fingerprint agrees.
        await waitUntil(
          () => /reusing the snapshot saved|full rebuild (done|failed)|could not be read/.test(server.output()),
          120_000,
        )
        const warm = /reusing the snapshot saved/.test(server.output()) ? firstOkMs : undefined
        const debugRss = async (stage: string) => {
          if (process.env.BENCH_DEBUG)
            console.log(`warm process ${stage}: peak RSS ${(await peakRssMiB(server)).toFixed(0)} MiB`)
        }
        await server.settled(SETTLE_MS)
        await debugRss('settled after its start')

        const episodes = documents.filter((document) => document._type === 'episode')
        const edited = episodes[Math.floor(episodes.length / 2)]
        if (!edited) throw new Error('no episode')
        const edit: number[] = []
        const insert: number[] = []
        const voice: number[] = []
        const feed: number[] = []
        const release: number[] = []
        const chapters: number[] = []

        // Each change is written where the source reads it before the webhook announces it.
        const change = async (next: SanityDocument[]) => {
          documents = next
          if (standIn) standIn.index()
          else await writeDataset()
        }
        // A voice's new slug must show in the episodes that link to it.
        const referencesOf = (document: SanityDocument) =>
          [...JSON.stringify(document).matchAll(/"_ref":"([^"]+)"/g)].map((match) => match[1])
        const linking = documents.find((document) => document._type === 'episode' && referencesOf(document).length > 0)
        const guest =
          linking &&
          documents.find((document) => document._type === 'voice' && referencesOf(linking).includes(document._id))
        if (!guest) throw new Error('no linked voice')

        for (let round = 1; round <= PUBLISH_ROUNDS; round++) {
          const title = `עריכה ${size} ${round}`
          const retitle = () =>
            change(documents.map((document) => (document._id === edited._id ? {...document, title} : document)))
          edit.push(await publishToVisible(server, retitle, edited, `/api/v1/episodes/${slugOf(edited)}.json`, title))

          const slug = `bench-new-${size}-${round}`
          const inserted = {
            ...edited,
            _id: slug,
            slug: {_type: 'slug', current: slug},
            title: `פרק חדש ${round}`,
            publishedAt: new Date().toISOString(),
          }
          insert.push(
            await publishToVisible(
              server,
              () => change([...documents, inserted]),
              inserted,
              `/api/v1/episodes/${slug}.json`,
              `פרק חדש ${round}`,
            ),
          )

          const renamed = `${slugOf(guest)}-renamed-${round}`
          const rename = () =>
            change(
              documents.map((document) =>
                document._id === guest._id ? {...document, slug: {_type: 'slug', current: renamed}} : document,
              ),
            )
          voice.push(
            await publishToVisible(server, rename, guest, `/api/v1/episodes/${slugOf(linking)}.json`, `"${renamed}"`),
          )

          const feedTitle = `עריכה בפיד ${size} ${round}`
          const retitleForFeed = () =>
            change(
              documents.map((document) => (document._id === edited._id ? {...document, title: feedTitle} : document)),
            )
          feed.push(await publishToNewEtag(server, retitleForFeed, edited, '/feed.xml'))

          const chapterTitle = `מקטע ${size} ${round}`
          const rechapter = () =>
            change(
              documents.map((document) =>
                document._id === edited._id
                  ? {
                      ...document,
                      chapters: [
                        {_key: 'opening', _type: 'chapter', start: '0:00', title: 'פתיחה'},
                        {_key: 'edited', _type: 'chapter', start: '0:30', title: chapterTitle},
                      ],
                    }
                  : document,
              ),
            )
          chapters.push(
            await publishToVisible(server, rechapter, edited, `/api/v1/episodes/${slugOf(edited)}.json`, chapterTitle),
          )

          const releasedSlug = `bench-release-${size}-${round}`
          release.push(
            await releaseToVisible(
              server,
              async (releaseAt) => {
                const scheduled = {
                  ...edited,
                  _id: releasedSlug,
                  slug: {_type: 'slug', current: releasedSlug},
                  title: `פרק מתוזמן ${round}`,
                  publishedAt: releaseAt.toISOString(),
                }
                await change([...documents, scheduled])
                return scheduled
              },
              releasedSlug,
            ),
          )
        }
        const feedBytes = Number(
          (
            await fetch(`${server.baseUrl}/feed.xml`, {method: 'HEAD', headers: {'accept-encoding': 'identity'}})
          ).headers.get('content-length'),
        )

        if (process.env.BENCH_DEBUG)
          console.log(
            server
              .output()
              .split('\n')
              .filter((line) => /rebuild|re-reading/.test(line))
              .join('\n'),
          )
        await server.settled(SETTLE_MS)
        await debugRss('after the edits')
        const requests = await throughput(server, `/api/v1/episodes/${slugOf(edited)}.json`)
        const warmRss = await peakRssMiB(server)
        // After the peak is read: the search index is made on demand, and is measured apart.
        const firstSearch = await timedSearch(server, 'ריאקט')
        const token = await catalogVersionAt(server.baseUrl)
        const searchTitle = `חיפוש ${size}`
        const searchAfterEdit = await publishToVisible(
          server,
          () =>
            change(
              documents.map((document) => (document._id === edited._id ? {...document, title: searchTitle} : document)),
            ),
          edited,
          `/api/v1/search.json?q=${encodeURIComponent(searchTitle)}&limit=1`,
          `"slug":"${slugOf(edited)}"`,
        )
        // What a mirror reads for that one edit, against the whole catalog.
        const deltaBytes = (await (await fetch(`${server.baseUrl}/api/v1/changes.json?since=${token}`)).arrayBuffer())
          .byteLength
        const allBytes = Number(
          (
            await fetch(`${server.baseUrl}/api/v1/all.json`, {method: 'HEAD', headers: {'accept-encoding': 'identity'}})
          ).headers.get('content-length'),
        )
        if (process.env.BENCH_DEBUG)
          console.log(`peak RSS: cold process ${coldRss.toFixed(0)} MiB, warm process ${warmRss.toFixed(0)} MiB`)
        const rss = Math.max(coldRss, warmRss)
        await server.stop()

        rows.push({
          source: sourceName,
          documents: grown.length,
          cold,
          warm,
          rss,
          edit,
          insert,
          voice,
          feed,
          release,
          chapters,
          feedBytes,
          requests,
          firstSearch,
          searchAfterEdit,
          deltaBytes,
          allBytes,
        })
        console.log(rows.at(-1))
      } finally {
        await standIn?.close()
      }
    }
  }
} finally {
  await rm(folder, {recursive: true, force: true})
}

const ms = (value: number | undefined) =>
  value === undefined ? 'n/a' : value < 10 ? value.toFixed(1) : value.toFixed(0)
/** The median of a few publishes, with the slowest in brackets. */
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return `${ms(sorted[Math.floor(sorted.length / 2)])} (${ms(sorted.at(-1))})`
}
const report = `# Scale benchmark

\`npm run bench:scale\` on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} cores. Each row is \`npm start\`
(\`server/main.ts\`, its own process, logs at \`info\`) over a dataset grown from the sample by
\`support/grow-dataset.ts\`: **file** reads the NDJSON file; **sanity** runs @sanity/client against a
local stand-in of the query API (\`support/sanity-stand-in.ts\`, groq-js, in the benchmark's process).

- **cold**: process start to the first 200, ms, with \`SNAPSHOT_DIR\` set and empty. **warm**: the same after that process saved its snapshot and was stopped, over the same content (the saved snapshot is reused), ms. The measurements below run on the warm process.
- **peak RSS**: the higher high-water mark (VmHWM) of the two processes, the cold one when it stopped and the warm one after everything below, MiB.
- **edit**, **insert**, **voice**: from a signed webhook until \`GET\` shows the change, ms: an episode's title edited; a new episode; a voice's slug changed, seen in an episode that links to it. Each is published ${PUBLISH_ROUNDS} times: the median, and the slowest in brackets. Each is made once the server is settled (under 20 ms of CPU in 500 ms); the clock starts when the change is in the stand-in or the new file has been renamed over the old one, and the webhook is sent at once (the file watcher may pick the change up first).
- **feed**: an episode's title edited, from the webhook until \`HEAD /feed.xml\` answers a new ETag (the feed is too large at 100k to poll whole; the server assembles it from its items' bytes on that request), ms, median and slowest; **feed MB**: the feed's identity bytes.
- **chapters**: an episode's chapters edited, from the webhook until its \`GET\` shows the new chapter, ms, median and slowest.
- **release**: an episode scheduled ${RELEASE_AHEAD_MS / 1000} s ahead (its webhook sent then, so the server knows its time), from its release time until both the first page of \`/api/v1/episodes.json\` lists it and \`HEAD /feed.xml\` answers a new ETag, with no webhook at that time, ms, median and slowest.
- **first search**: from the first \`GET /api/v1/search.json?q=ריאקט\` after the load test until one is answered (the first makes the search index, in the background past 2,500 documents, answering 503 meanwhile), ms; **search edit**: then an episode retitled, from the webhook until a search for its new title finds it, ms (the index moves on by the items the publish changed). Both after peak RSS is read. **delta KB**: \`changes.json?since=\` the version before that edit (what a mirror reads for it); **all.json MB**: the whole catalog, identity bytes.
- **req/s**: one episode, \`Accept-Encoding: br\`, on the settled server after a second of warm-up, autocannon, 32 connections, ${THROUGHPUT_SECONDS} s (the benchmark and the server share the machine's ${cpus().length} cores).

| source | documents | cold ms | warm ms | peak RSS MiB | edit ms | insert ms | voice ms | feed ms | chapters ms | release ms | feed MB | req/s | first search ms | search edit ms | delta KB | all.json MB |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.map((row) => `| ${row.source} | ${row.documents.toLocaleString('en')} | ${ms(row.cold)} | ${ms(row.warm)} | ${row.rss.toFixed(0)} | ${spread(row.edit)} | ${spread(row.insert)} | ${spread(row.voice)} | ${spread(row.feed)} | ${spread(row.chapters)} | ${spread(row.release)} | ${(row.feedBytes / 1e6).toFixed(1)} | ${row.requests.toFixed(0)} | ${ms(row.firstSearch)} | ${ms(row.searchAfterEdit)} | ${(row.deltaBytes / 1024).toFixed(1)} | ${(row.allBytes / 1e6).toFixed(1)} |`).join('\n')}
`
if (process.env.BENCH_SIZES === undefined && process.env.BENCH_SOURCES === undefined)
  await writeFile('bench/results/scale.md', report)
console.log(report)
