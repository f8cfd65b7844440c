// callService's deadlines, over real loopback sockets. For the connect timeout, a listener whose
// thread is blocked accepts nothing, so once its accept queue (backlog 1) is full the kernel drops
// further SYNs and a connection attempt hangs, as one to a host that black-holes packets does.
import {createServer} from 'node:http'
import {connect, type Socket} from 'node:net'
import {Worker} from 'node:worker_threads'
import {expect, it} from 'vitest'
import {z} from 'zod'
import {callService} from '../../server/outbound/service-call.ts'

const BLOCKED_LISTENER = `
const {createServer} = require('node:net')
const {parentPort} = require('node:worker_threads')
const server = createServer().listen({port: 0, host: '127.0.0.1', backlog: 1}, () => {
  parentPort.postMessage(server.address().port)
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
})`

it(
  'gives up on a connection that is not open within the connect timeout, long before the total deadline',
  {timeout: 60_000},
  async () => {
    const worker = new Worker(BLOCKED_LISTENER, {eval: true})
    const held: Socket[] = []
    try {
      const port = z.number().parse(await new Promise((resolve) => worker.once('message', resolve)))
      // Fill the accept queue; the connections after these are not answered.
      for (let index = 0; index < 2; index++) {
        const socket = connect(port, '127.0.0.1')
        socket.on('error', () => undefined)
        held.push(socket)
        await new Promise((resolve) => socket.once('connect', resolve))
      }
      const startedAt = performance.now()
      const failure = await callService(
        `http://127.0.0.1:${port}/hub`,
        {method: 'POST', body: 'x'},
        {connectTimeoutMs: 300, timeoutMs: 30_000},
      ).catch((error: unknown) => error)
      expect(failure instanceof Error ? failure.message : failure).toMatch(
        /no connection to 127\.0\.0\.1:\d+ within 300 ms/,
      )
      expect(performance.now() - startedAt).toBeLessThan(10_000)
    } finally {
      for (const socket of held) socket.destroy()
      await worker.terminate()
    }
  },
)

it('gives up on an answer still trickling in at the total deadline', {timeout: 60_000}, async () => {
  const trickle = createServer((request, response) => {
    request.resume()
    response.writeHead(500, {'content-type': 'text/plain'})
    const timer = setInterval(() => response.write('x'), 50)
    response.once('close', () => clearInterval(timer))
  })
  await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve))
  try {
    const {port} = z.object({port: z.number()}).parse(trickle.address())
    const startedAt = performance.now()
    const failure = await callService(`http://127.0.0.1:${port}/`, {method: 'GET'}, {timeoutMs: 500}).catch(
      (error: unknown) => error,
    )
    expect(failure instanceof Error ? failure.message : failure).toMatch(
      /no whole answer from 127\.0\.0\.1:\d+ within 500 ms/,
    )
    expect(performance.now() - startedAt).toBeLessThan(10_000)
  } finally {
    trickle.closeAllConnections()
    trickle.close()
  }
})
