import {createServer, connect, type Server, type Socket} from 'node:net'

/** A TCP relay in front of Varnish for purges alone: closing it makes Varnish unreachable while its cache lives on. */
export interface PurgeRelay {
  port: number
  open(): Promise<void>
  close(): Promise<void>
}
export function purgeRelay(port: number, target: () => number): PurgeRelay {
  let server: Server | undefined
  const sockets = new Set<Socket>()
  return {
    port,
    open: () =>
      new Promise((resolve) => {
        server = createServer((socket) => {
          const upstream = connect(target(), '127.0.0.1')
          sockets.add(socket).add(upstream)
          socket.pipe(upstream).pipe(socket)
          const end = () => [socket, upstream].forEach((each) => (each.destroy(), sockets.delete(each)))
          socket.on('error', end).on('close', end)
          upstream.on('error', end).on('close', end)
        }).listen(port, '127.0.0.1', () => resolve())
      }),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy()
        server?.close(() => resolve())
      }),
  }
}
