// node bench/dataset-reread.ts: what the embedded source's incremental reader saves over reading
// the dataset file whole on each change, at 1k, 10k and 100k documents (the grown sample). For
// each size, one edit of an episode's title: (a) read the file whole and parse every line (the
// plainest reader), (b) the incremental reader's read after the edit (server/content/ndjson-file.ts:
// a read and checksum of the file, a parse of the blocks the edit reached). The median of five
// edits each. Prints the table; `-- --write` writes it to bench/results/dataset-reread.md.
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {documentSetOf} from '../server/content/document-set.ts'
import {openDatasetFile} from '../server/content/ndjson-file.ts'
import {parseNdjson} from '../server/content/ndjson.ts'
import {growDataset} from '../support/grow-dataset.ts'

const SIZES = [1_000, 10_000, 100_000]
const EDITS = 5
const sample = parseNdjson(await readFile('data/catalog.ndjson', 'utf8'), 'data/catalog.ndjson')
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const directory = await mkdtemp(join(tmpdir(), 'dataset-reread-'))
const rows: string[] = []
try {
  for (const size of SIZES) {
    const documents = growDataset(sample, size)
    const path = join(directory, `${size}.ndjson`)
    const lines = documents.map((document) => JSON.stringify(document))
    await writeFile(path, `${lines.join('\n')}\n`)
    const incremental = openDatasetFile(path)
    await incremental.read()
    const edited = lines.findIndex((line) => line.includes('"_type":"episode"'))
    const whole: number[] = []
    const partial: number[] = []
    for (let edit = 0; edit < EDITS; edit++) {
      lines[edited] = JSON.stringify({...documents[edited], title: `כותרת שנערכה ${edit}`})
      await writeFile(path, `${lines.join('\n')}\n`)
      const wholeStarted = performance.now()
      const parsed = parseNdjson(await readFile(path, 'utf8'), path)
      documentSetOf(parsed).get(documents[edited]?._id ?? '')
      whole.push(performance.now() - wholeStarted)
      const partialStarted = performance.now()
      const set = await incremental.read()
      set.get(documents[edited]?._id ?? '')
      partial.push(performance.now() - partialStarted)
    }
    rows.push(
      `| ${documents.length.toLocaleString('en')} | ${(Buffer.byteLength(lines.join('\n')) / 2 ** 20).toFixed(1)} | ${median(whole).toFixed(0)} | ${median(partial).toFixed(0)} |`,
    )
    console.log(rows.at(-1))
  }
} finally {
  await rm(directory, {recursive: true, force: true})
}
const report = `# Reading the dataset file after an edit

\`node bench/dataset-reread.ts\` on ${new Date().toISOString().slice(0, 10)}: one episode's title edited in the grown sample file, the median of ${EDITS} edits, in one process.

| documents | file MiB | read whole and parse every line, ms | incremental reader (ndjson-file.ts), ms |
|---|---|---|---|
${rows.join('\n')}
`
console.log(report)
if (process.argv.includes('--write')) await writeFile('bench/results/dataset-reread.md', report)
