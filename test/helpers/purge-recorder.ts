import {createServer} from 'node:http'

/** A Varnish stand-in for purges alone, on loopback: answers 200 and records the keys of each PURGE and when it came. */
export async function purgeRecorder() {
  const purges: string[][] = []
  const times: number[] = []
  const server = createServer((request, response) => {
    if (request.method === 'PURGE') {
      purges.push(String(request.headers['xkey-purge'] ?? '').split(' '))
      times.push(performance.now())
    }
    response.writeHead(200).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  return {
    url: `http://127.0.0.1:${address.port}/`,
    purges,
    /** `performance.now()` of each recorded PURGE, in order. */
    times,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
