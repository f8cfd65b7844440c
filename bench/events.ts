// `npm run bench:events`: `npm start`'s process over a copy of the sample dataset with N event
// streams open (raw sockets from this process, sixteen client addresses, each at most a sixteenth
// of the streams, named by X-Forwarded-For from a trusted loopback proxy), its RSS before and after
// they open, then M edits of the dataset file, each timed from the file's rename to its event on
// every stream: p50, p99 and the slowest. Prints a Markdown table; `-- --write` adds it to
// bench/results/events.md. BENCH_STREAMS (10,000) and BENCH_EDITS (5) change the sizes.
import {appendFile, copyFile, mkdtemp, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {connect, type Socket} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {startServerProcess, sleep} from './server-process.ts'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000)
const EDITS = Number(process.env.BENCH_EDITS ?? 5)
const CLIENTS = 16

const directory = await mkdtemp(join(tmpdir(), 'catalog-bench-events-'))
const datasetFile = join(directory, 'catalog.ndjson')
await copyFile('data/catalog.ndjson', datasetFile)
const {server} = await startServerProcess({
  DATASET_FILE: datasetFile,
  EVENT_STREAMS_MAX: String(STREAMS),
  TRUST_PROXY: 'loopback',
  RATE_LIMIT_QUOTA: '0',
})
const port = Number(new URL(server.baseUrl).port)
const pid = server.child.pid ?? 0
const rssMiB = async () => {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

try {
  await sleep(2000)
  const before = await rssMiB()
  // Each socket: the time its latest event arrived, and how many it got.
  const arrived: number[] = new Array<number>(STREAMS).fill(0)
  const counts: number[] = new Array<number>(STREAMS).fill(0)
  const sockets: Socket[] = []
  for (let index = 0; index < STREAMS; index++) {
    const socket = connect(port, '127.0.0.1')
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      // An event has data; the opening's id has none (it only sets the stream's last event id).
      const events = (chunk.match(/^data: /gm) ?? []).length
      if (events > 0) {
        counts[index] = (counts[index] ?? 0) + events
        arrived[index] = performance.now()
      }
    })
    socket.on('error', () => undefined)
    socket.write(`GET /api/v1/events HTTP/1.1\r\nHost: bench\r\nX-Forwarded-For: 198.51.100.${index % CLIENTS}\r\n\r\n`)
    sockets.push(socket)
    if (index % 500 === 499) await sleep(50)
  }
  await sleep(3000)
  const open = await rssMiB()

  const delays: number[] = []
  const text = await readFile(datasetFile, 'utf8')
  for (let edit = 1; edit <= EDITS; edit++) {
    await writeFile(
      `${datasetFile}.new`,
      text.replace('"title":"פרק 1: למה התחלנו פודקאסט על קוד"', `"title":"פרק 1: עריכה ${edit}"`),
    )
    const sent = performance.now()
    await rename(`${datasetFile}.new`, datasetFile)
    const deadline = sent + 30_000
    while (counts.some((count) => count < edit) && performance.now() < deadline) await sleep(20)
    for (const time of arrived) delays.push(time - sent)
    await sleep(1000)
  }
  delays.sort((a, b) => a - b)
  const at = (share: number) => Math.round(delays[Math.min(delays.length - 1, Math.floor(share * delays.length))] ?? 0)
  const missed = counts.filter((count) => count < EDITS).length
  const table = [
    `\n## ${new Date().toISOString()}: ${STREAMS} streams, ${EDITS} edits\n`,
    '| streams | RSS before MiB | RSS with streams MiB | added MiB | publish to event p50 ms | p99 ms | slowest ms | streams that missed an event |',
    '|---|---|---|---|---|---|---|---|',
    `| ${STREAMS} | ${before.toFixed(0)} | ${open.toFixed(0)} | ${(open - before).toFixed(0)} | ${at(0.5)} | ${at(0.99)} | ${Math.round(delays.at(-1) ?? 0)} | ${missed} |`,
    '',
  ].join('\n')
  console.log(table)
  if (process.argv.includes('--write')) await appendFile('bench/results/events.md', table)
  for (const socket of sockets) socket.destroy()
} finally {
  await server.stop()
  await rm(directory, {recursive: true, force: true})
}
