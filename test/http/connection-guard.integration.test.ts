// The connection guard without a listening server: answers written on a stand-in socket, the
// per-client cap driven by 'connection' events, and the body gate's release on a body read to its end.
import {EventEmitter} from 'node:events'
import {createServer} from 'node:http'
import {Duplex} from 'node:stream'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {answerOnSocket, bodyGate, capConnectionsPerClient} from '../../server/http/connection-guard.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'

/** A socket whose client never closes its side: what the server writes is kept. */
function standInSocket(remoteAddress?: string) {
  const written: string[] = []
  const socket = new Duplex({
    read: () => undefined,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'))
      callback()
    },
  })
  return {socket: Object.assign(socket, {remoteAddress}), text: () => written.join('')}
}

afterEach(() => vi.useRealTimers())

describe('answerOnSocket', () => {
  it('writes the problem for the root, then lets the socket go after a second of reading', () => {
    vi.useFakeTimers()
    const {socket, text} = standInSocket()
    answerOnSocket(socket, BASE, 400, 'The request is not valid HTTP/1.1.')
    const [head = '', body = ''] = text().split('\r\n\r\n')
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
    expect(JSON.parse(body)).toMatchObject({status: 400, instance: '/', detail: 'The request is not valid HTTP/1.1.'})
    socket.push('what the client still sends')
    vi.advanceTimersByTime(999)
    expect(socket.destroyed).toBe(false)
    vi.advanceTimersByTime(1)
    expect(socket.destroyed).toBe(true)
  })

  it('keeps no timer for a socket that closed first', async () => {
    vi.useFakeTimers()
    const {socket} = standInSocket()
    answerOnSocket(socket, BASE, 400, 'x')
    socket.destroy()
    await vi.waitFor(() => expect(socket.listenerCount('close')).toBe(0), {timeout: 10_000})
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('connections per client, counted from connection events', () => {
  const guarded = (max: number) => {
    const server = createServer() // never listens: the test emits its connections
    capConnectionsPerClient(server, {max, exempt: (address) => address === '10.0.0.9', publicBaseUrl: BASE})
    return (address?: string) => {
      const connection = standInSocket(address)
      server.emit('connection', connection.socket)
      return {...connection, refused: () => connection.text().startsWith('HTTP/1.1 429 ')}
    }
  }

  it('makes room again once the only connection of an address closes', () => {
    const connect = guarded(1)
    const first = connect('10.0.0.1')
    expect(first.refused()).toBe(false)
    expect(connect('10.0.0.1').refused()).toBe(true)
    first.socket.emit('close')
    expect(connect('10.0.0.1').refused()).toBe(false)
  })

  it('counts the connections left after one closes', () => {
    const connect = guarded(2)
    const first = connect('10.0.0.1')
    connect('10.0.0.1')
    first.socket.emit('close')
    expect(connect('10.0.0.1').refused()).toBe(false)
    expect(connect('10.0.0.1').refused()).toBe(true)
  })

  it('caps neither an exempt peer nor a socket without an address', () => {
    const connect = guarded(1)
    connect('10.0.0.9')
    expect(connect('10.0.0.9').refused()).toBe(false)
    connect()
    expect(connect().refused()).toBe(false)
  })
})

describe('the body gate, for a body read to its end', () => {
  it('lets the body go as soon as it ends, before its response closes', () => {
    const gate = bodyGate(1)
    const request = Object.assign(fakeRequest('POST', '/', {'content-length': '3'}), {socket: new EventEmitter()})
    expect(gate.admit(request, fakeResponse().response)).toBe(true)
    expect(gate.inFlight()).toBe(1)
    request.emit('end')
    expect(gate.inFlight()).toBe(0)
  })
})
