// npm run bench:transcript: what transcripts cost. (1) An episode with 20,000 cues (the rule's
// limit, 1.9 MB of Hebrew text) through the real snapshot builder: the full build with it and
// without it, a per-document rebuild of it, and each format's first request. (2) The search
// index at 100,000 documents with a transcript of 300 cues on one episode in ten, against the same
// catalog without them: the heap it holds and the time to build it. Prints the results; `-- --write`
// also writes them to bench/results/transcript.md.
import {readFile, writeFile} from 'node:fs/promises'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {catalogSnapshotBuilder} from '../server/catalog-builder.ts'
import {words} from '../server/snapshot/hebrew-text.ts'
import {searchCatalog} from '../server/snapshot/search.ts'
import type {Snapshot} from '../server/snapshot/snapshot.ts'
import {growDataset} from '../support/grow-dataset.ts'

const CUES_AT_LIMIT = 20_000
// Five words a cue keep 20,000 cues under the rule's 2 MB of text; fourteen is a spoken line.
const WORDS_AT_LIMIT = 5
const CUES_PER_EPISODE = 300
const WORDS_PER_CUE = 14
const GROWN_TO = Number(process.env.BENCH_DOCUMENTS ?? 100_000)
const EPISODE = 'f8fe4112-b825-4622-a3a7-30a2cc0eb1e9' // ep-24-redis-internals

// npm run bench:transcript runs node with --expose-gc: heap figures are taken after collecting.
const gc = globalThis.gc ?? (() => undefined)
// The transcript index keeps its pairs in typed arrays, whose bytes are array buffers outside the
// heap: both are counted.
const heldMiB = () => {
  gc()
  gc()
  const {heapUsed, arrayBuffers} = process.memoryUsage()
  return {heap: heapUsed / 2 ** 20, arrayBuffers: arrayBuffers / 2 ** 20}
}

const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
const config = loadConfig({PUBLIC_BASE_URL: 'https://api.example.org'})
// Words as the catalog writes them, so the transcripts' vocabulary is the catalog's, not a handful.
const vocabulary = [...new Set(sample.flatMap((document) => words(JSON.stringify(document))))].filter(
  (word) => word.length > 1,
)
let seed = 1
const nextWord = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return vocabulary[seed % vocabulary.length] ?? 'מילה'
}
const cues = (count: number, wordsPerCue: number) =>
  Array.from({length: count}, (_, index) => ({
    _key: `c${index}`,
    _type: 'transcriptCue',
    start: index * 3,
    end: index * 3 + 2.5,
    speakerName: index % 2 === 0 ? 'דוברת' : 'דובר',
    text: Array.from({length: wordsPerCue}, nextWord).join(' '),
  }))
const withTranscript = (documents: readonly SanityDocument[], transcriptOf: (document: SanityDocument) => unknown) =>
  documents.map((document) => {
    const transcript = transcriptOf(document)
    return transcript === undefined ? document : {...document, transcript, duration: 100_000}
  })

async function build(documents: readonly SanityDocument[]): Promise<{snapshot: Snapshot; ms: number}> {
  const builder = catalogSnapshotBuilder({
    source: createEmbeddedSource('bench', () => Promise.resolve(documents)),
    config,
    clock: () => new Date(),
  })
  const started = performance.now()
  const snapshot = await builder(undefined, {kind: 'all'})
  return {snapshot, ms: performance.now() - started}
}

// (1) One episode at the limit.
const atLimit = withTranscript(sample, (document) =>
  document._id === EPISODE ? cues(CUES_AT_LIMIT, WORDS_AT_LIMIT) : undefined,
)
const bytes = Buffer.byteLength(JSON.stringify(atLimit.find((document) => document._id === EPISODE)?.['transcript']))
await build(sample) // warms the code paths once
const without = await build(sample)
const withLimit = await build(atLimit)
const rebuilder = catalogSnapshotBuilder({
  source: createEmbeddedSource('bench', () => Promise.resolve(atLimit)),
  config,
  clock: () => new Date(),
})
const started = performance.now()
await rebuilder(withLimit.snapshot, {kind: 'documents', documents: new Map([[EPISODE, 'episodes' as const]])})
const rebuildMs = performance.now() - started
if (!withLimit.snapshot.catalog.episodes.some((entry) => entry.transcript && entry.documentId === EPISODE))
  throw new Error(
    `the ${CUES_AT_LIMIT}-cue transcript was left out: ${JSON.stringify(withLimit.snapshot.catalog.problems)}`,
  )
const formats = ['vtt', 'srt', 'json'] as const
const firstRequest = formats.map((extension) => {
  const before = performance.now()
  const document = withLimit.snapshot.transcript('ep-24-redis-internals', extension)
  return {extension, ms: performance.now() - before, bytes: document?.body.length ?? 0}
})

// (2) The search index at 100k, a transcript on one episode in ten.
async function indexCost(documents: readonly SanityDocument[]) {
  const {snapshot, ms} = await build(documents)
  const before = heldMiB()
  const indexStarted = performance.now()
  // Built in the background, a slice at a time, as the server builds it on a first search.
  await snapshot.searchIndex.ready(snapshot)
  const indexMs = performance.now() - indexStarted
  const after = heldMiB()
  const held = {heap: after.heap - before.heap, arrayBuffers: after.arrayBuffers - before.arrayBuffers}
  const queryStarted = performance.now()
  searchCatalog(snapshot, 'ריאקט בשרת', ['episodes', 'meetups', 'voices'], 10)
  const {counts} = snapshot
  const transcripts = snapshot.catalog.episodes.filter((entry) => entry.transcript).length
  const transcriptBytes = snapshot.catalog.episodes.reduce((sum, entry) => sum + (entry.transcript?.length ?? 0), 0)
  return {buildMs: ms, indexMs, held, queryMs: performance.now() - queryStarted, counts, transcripts, transcriptBytes}
}
// The sample's own three short transcripts are taken out first: "without" has none at all, and
// "with" has exactly one episode in ten transcribed.
const grown = growDataset(sample, GROWN_TO).map(({transcript: _spoken, ...document}) => document)
let episodeCount = 0
const transcribed = withTranscript(grown, (document) =>
  document._type === 'episode' && episodeCount++ % 10 === 0 ? cues(CUES_PER_EPISODE, WORDS_PER_CUE) : undefined,
)
const plain = await indexCost(grown)
const spoken = await indexCost(transcribed)
const plainCounts = plain.counts
const {transcripts, transcriptBytes} = spoken

const indexRow = (name: string, {buildMs, indexMs, held, queryMs}: Awaited<ReturnType<typeof indexCost>>) =>
  `| ${name} | ${buildMs.toFixed(0)} | ${indexMs.toFixed(0)} | ${(held.heap + held.arrayBuffers).toFixed(0)} (${held.heap.toFixed(0)} + ${held.arrayBuffers.toFixed(0)}) | ${queryMs.toFixed(1)} |`

const report = `# Transcript benchmark

\`npm run bench:transcript\` on ${new Date().toISOString().slice(0, 10)}, in one process through the real snapshot builder over the embedded source.

## An episode at the limit: ${CUES_AT_LIMIT.toLocaleString('en')} cues

The sample catalog with ep-24's transcript grown to ${CUES_AT_LIMIT.toLocaleString('en')} cues (${(bytes / 2 ** 20).toFixed(1)} MiB as stored in Sanity, ${WORDS_AT_LIMIT} words a cue).

| what | ms |
|---|---|
| full build, the sample without it | ${without.ms.toFixed(0)} |
| full build, the sample with it | ${withLimit.ms.toFixed(0)} |
| per-document rebuild of that episode (the webhook's path) | ${rebuildMs.toFixed(0)} |
${firstRequest.map((format) => `| first request of transcript.${format.extension} (${(format.bytes / 2 ** 20).toFixed(2)} MiB) | ${format.ms.toFixed(0)} |`).join('\n')}

## The search index at ${GROWN_TO.toLocaleString('en')} documents

${plainCounts.episodes.toLocaleString('en')} episodes, ${plainCounts.meetups.toLocaleString('en')} meetups, ${plainCounts.voices.toLocaleString('en')} voices; ${transcripts.toLocaleString('en')} episodes (one in ten) with a transcript of ${CUES_PER_EPISODE} cues of ${WORDS_PER_CUE} words drawn from the catalog's own vocabulary (${(transcriptBytes / 2 ** 20).toFixed(0)} MiB of transcript bytes held by the catalog, outside the JS heap).

| catalog | full build ms | index build ms | memory the index holds MiB (heap + array buffers) | a query after ms |
|---|---|---|---|---|
${indexRow('without transcripts', plain)}
${indexRow('one episode in ten with one', spoken)}
`
console.log(report)
if (process.argv.includes('--write')) await writeFile('bench/results/transcript.md', report)
