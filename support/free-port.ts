import {createServer} from 'node:net'

/** A loopback port free right now, for a child process that must be told its port. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return address.port
}
