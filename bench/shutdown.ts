// `npm run bench:shutdown`: `npm start`'s process with 1,000 MCP listen streams (2026-07-28, the
// official client SDK) and 1,000 event streams (raw sockets) open, then SIGTERM: the time until the
// process exits, and how each MCP stream ended (the protocol's graceful close, or a cut). On the way,
// the per-address shares: ten addresses each open MCP listen streams until refused, then an eleventh
// still gets one. Prints a Markdown table; `-- --write` adds it to bench/results/shutdown.md.
// BENCH_STREAMS (1,000 of each) changes the size.
import {appendFile} from 'node:fs/promises'
import {connect, type Socket} from 'node:net'
import {Client, StreamableHTTPClientTransport, type McpSubscription} from '@modelcontextprotocol/client'
import {startServerProcess, sleep} from './server-process.ts'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000)
/** MCP's default bounds (server/mcp/listen-streams.ts): 1,024 streams, a sixteenth per address. */
const MCP_SHARE = 1024 / 16

const {server} = await startServerProcess({TRUST_PROXY: 'loopback', RATE_LIMIT_QUOTA: '0'})
const port = Number(new URL(server.baseUrl).port)

async function agentAt(address: string): Promise<Client> {
  const client = new Client(
    {name: 'bench-shutdown', version: '1.0.0'},
    {versionNegotiation: {mode: {pin: '2026-07-28'}}},
  )
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
      requestInit: {headers: {'X-Forwarded-For': address}},
    }),
  )
  return client
}

/** Opens listen streams from `address` until `count` are open or the server refuses one; returns them. */
async function listenUntilRefused(client: Client, count: number): Promise<{held: McpSubscription[]; refused: boolean}> {
  const held: McpSubscription[] = []
  while (held.length < count) {
    try {
      held.push(await client.listen({resourcesListChanged: true}))
    } catch {
      return {held, refused: true}
    }
  }
  return {held, refused: false}
}

const listens: McpSubscription[] = []
// Ten addresses each open streams until refused (their share), then an eleventh still gets one.
const shares: number[] = []
for (let address = 1; address <= 10; address++) {
  const {held, refused} = await listenUntilRefused(await agentAt(`203.0.113.${address}`), MCP_SHARE + 1)
  if (!refused) throw new Error(`203.0.113.${address} was never refused`)
  shares.push(held.length)
  listens.push(...held)
}
const eleventh = await listenUntilRefused(await agentAt('203.0.113.11'), 1)
listens.push(...eleventh.held)
for (let address = 12; listens.length < STREAMS; address++) {
  const {held} = await listenUntilRefused(
    await agentAt(`203.0.113.${address}`),
    Math.min(MCP_SHARE, STREAMS - listens.length),
  )
  listens.push(...held)
}

const sockets: Socket[] = []
let eventStreamsOpen = 0
for (let index = 0; index < STREAMS; index++) {
  const socket = connect(port, '127.0.0.1')
  socket.setEncoding('utf8')
  socket.once('data', (chunk: string) => {
    if (chunk.startsWith('HTTP/1.1 200')) eventStreamsOpen++
  })
  socket.on('error', () => undefined)
  socket.write(`GET /api/v1/events HTTP/1.1\r\nHost: bench\r\nX-Forwarded-For: 198.51.100.${index % 16}\r\n\r\n`)
  sockets.push(socket)
}
await sleep(2000)

const endings = Promise.all(listens.map((listen) => listen.closed))
const started = performance.now()
const exited = new Promise<number>((resolve) => server.child.once('exit', () => resolve(performance.now() - started)))
server.child.kill('SIGTERM')
const exitMs = await exited
const ended = await Promise.race([endings, sleep(5000).then(() => undefined)])
const count = (reason: string) => ended?.filter((ending) => ending === reason).length ?? 0
for (const socket of sockets) socket.destroy()

const row = `| ${new Date().toISOString().slice(0, 16)} | ${listens.length} | ${eventStreamsOpen} | ${exitMs.toFixed(0)} | ${count('graceful')} | ${count('remote')} | ${shares.join(', ')} | ${eleventh.held.length} |`
const report = `| run | MCP listen streams | event streams | SIGTERM to exit ms | MCP graceful | MCP cut | ten addresses' shares | eleventh got |
|---|---|---|---|---|---|---|---|
${row}`
console.log(report)
if (process.argv.includes('--write')) await appendFile('bench/results/shutdown.md', `${row}\n`)
process.exit(0)
