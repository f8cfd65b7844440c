// Integration: runs `server/main.ts` as its own process (as `npm start` does), opens MCP
// `subscriptions/listen` streams on it with the official client SDK, and sends SIGTERM: the
// streams end with the protocol's graceful close and the process exits, rather than holding the
// shutdown until its timeout and then being cut.
import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client'
import {afterAll, describe, expect, it} from 'vitest'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'

const STREAMS = 5
let server: MainProcess | undefined
const clients: Client[] = []

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()))
  await server?.stop('SIGKILL')
})

describe('SIGTERM with listen streams open', () => {
  it('ends every stream gracefully and exits without waiting for the shutdown timeout', async () => {
    // A timeout the shutdown would wait out if a stream held its connection: the test's own
    // liveness bound is above it, so such a run fails on what the clients saw, not on time.
    server = await startMainProcess({PORT: '0', SHUTDOWN_TIMEOUT_SECONDS: '20', RECONCILE_INTERVAL_SECONDS: '0'})
    const subscriptions = []
    for (let index = 0; index < STREAMS; index++) {
      const client = new Client(
        {name: 'shutdown-test', version: '1.0.0'},
        {versionNegotiation: {mode: {pin: '2026-07-28'}}},
      )
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`)))
      clients.push(client)
      subscriptions.push(await client.listen({resourcesListChanged: true}))
    }
    expect(await server.stop('SIGTERM')).toBe(0)
    expect(await Promise.all(subscriptions.map((subscription) => subscription.closed))).toEqual(
      Array.from({length: STREAMS}, () => 'graceful'),
    )
    const stopped = /stopped after SIGTERM: in-flight requests finished in (\d+) ms/.exec(server.output())
    expect(stopped, server.output()).not.toBeNull()
    // The shutdown did not run into its timeout (which cuts connections instead of waiting).
    expect(Number(stopped?.[1])).toBeLessThan(20_000)
  }, 60_000)
})
