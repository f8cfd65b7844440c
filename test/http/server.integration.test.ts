// The HTTP server's own refusals, over raw loopback sockets so that malformed requests reach it as
// sent: Host rules, absolute-form targets, the body gate, expectations, oversized and slow
// requests, the per-client connection cap and shutdown.
import {connect, type Socket} from 'node:net'
import type {AddressInfo} from 'node:net'
import {setTimeout as sleep} from 'node:timers/promises'
import {EventEmitter} from 'node:events'
import type {IncomingMessage, RequestListener, ServerResponse} from 'node:http'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {answerOnSocket, bodyGate} from '../../server/http/connection-guard.ts'
import {createHttpServer, DEFAULT_LIMITS, type CatalogHttpServer, type ServerLimits} from '../../server/http/server.ts'
import {collectGarbage} from '../helpers/gc.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const BASE = 'http://api.test'
const running: CatalogHttpServer[] = []
const sockets: Socket[] = []

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  for (const server of running.splice(0)) {
    server.server.closeAllConnections()
    await new Promise((resolve) => server.server.close(resolve))
  }
})

/** Answers every request 200 with its URL, after reading its body (a bodiless request's has ended already: optimizeEmptyRequests). */
const echo: RequestListener = (request, response) => {
  const answer = () => {
    const body = `url=${request.url}`
    response.writeHead(200, {'Content-Type': 'text/plain', 'Content-Length': String(Buffer.byteLength(body))}).end(body)
  }
  if (request.readableEnded) return answer()
  request.resume()
  request.on('end', answer)
}

async function start(
  limits: Partial<ServerLimits> = {},
  listener: RequestListener = echo,
  options = {},
): Promise<{port: number; http: CatalogHttpServer}> {
  const http = createHttpServer(listener, BASE, {...DEFAULT_LIMITS, ...limits}, options)
  running.push(http)
  await new Promise<void>((resolve) => http.server.listen(0, '127.0.0.1', resolve))
  return {port: (http.server.address() as AddressInfo).port, http}
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.on('error', reject)
    sockets.push(socket)
  })
}

/** Everything the server writes on a connection until it closes it (or `ms` pass). */
function readAll(socket: Socket, ms = 10_000): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')))
    const done = () => resolve(text)
    socket.on('close', done)
    socket.on('error', () => undefined)
    setTimeout(done, ms).unref()
  })
}

async function exchange(port: number, bytes: string): Promise<string> {
  const socket = await open(port)
  const reply = readAll(socket)
  socket.write(bytes)
  return reply
}

interface Parsed {
  status: number
  headers: Record<string, string>
  body: string
}

/** The first response in `raw`. */
function parse(raw: string): Parsed {
  const [head = '', ...rest] = raw.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  )
  const length = Number(headers['content-length'] ?? 0)
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: Buffer.from(rest.join('\r\n\r\n'), 'latin1').subarray(0, length).toString('utf8'),
  }
}

const problem = (raw: string) => {
  const parsed = parse(raw)
  expect(parsed.headers['content-type']).toBe('application/problem+json; charset=utf-8')
  expect(parsed.headers['x-content-type-options']).toBe('nosniff')
  expect(parsed.headers['cache-control']).toBe('no-store')
  expect(parsed.headers.connection).toBe('close')
  return {status: parsed.status, ...JSON.parse(parsed.body)}
}

describe('request targets and Host', () => {
  it('passes a valid request on, and takes an HTTP/1.0 request without Host', async () => {
    const {port} = await start()
    expect(
      parse(await exchange(port, 'GET /a?b=1 HTTP/1.1\r\nHost: api.test:8080\r\nConnection: close\r\n\r\n')),
    ).toMatchObject({status: 200, body: 'url=/a?b=1'})
    expect(parse(await exchange(port, 'GET /a HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\n\r\n'))).toMatchObject(
      {status: 200},
    )
    expect(parse(await exchange(port, 'GET /a HTTP/1.0\r\n\r\n'))).toMatchObject({status: 200, body: 'url=/a'})
  })

  it('refuses HTTP/1.1 without Host, a Host that is not one, and two Host lines', async () => {
    const {port} = await start()
    expect(problem(await exchange(port, 'GET /a HTTP/1.1\r\n\r\n'))).toMatchObject({
      status: 400,
      title: 'Bad Request',
      instance: '/',
      type: 'http://api.test/docs#errors-bad-request',
      detail: 'HTTP/1.1 requests must carry a Host header (RFC 9112, section 3.2).',
    })
    expect(problem(await exchange(port, 'GET /a HTTP/1.1\r\nHost: a/b\r\n\r\n'))).toMatchObject({
      status: 400,
      detail: 'The Host header is not a host name or address with an optional port.',
    })
    expect(problem(await exchange(port, 'GET /a HTTP/1.1\r\nHost: a:123456\r\n\r\n'))).toMatchObject({status: 400})
    expect(problem(await exchange(port, 'GET /a HTTP/1.1\r\nHost: api.test\r\nhost: api.test\r\n\r\n'))).toMatchObject({
      status: 400,
      detail: 'The request has more than one Host header.',
    })
  })

  it('checks a new Host even after a valid one was seen', async () => {
    const {port} = await start()
    expect(parse(await exchange(port, 'GET /a HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n')).status).toBe(
      200,
    )
    expect(parse(await exchange(port, 'GET /a HTTP/1.1\r\nHost: bad host\r\n\r\n')).status).toBe(400)
    expect(parse(await exchange(port, 'GET /a HTTP/1.1\r\nHost: one.test\r\nConnection: close\r\n\r\n')).status).toBe(
      200,
    )
  })

  it('serves an absolute-form target as its path and query, in any scheme, and refuses one that does not parse', async () => {
    const {port} = await start()
    expect(
      parse(
        await exchange(
          port,
          'GET http://elsewhere.test/api/v1/x.json?y=1 HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n',
        ),
      ).body,
    ).toBe('url=/api/v1/x.json?y=1')
    expect(
      parse(await exchange(port, 'GET WS://elsewhere.test/p HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n'))
        .body,
    ).toBe('url=/p')
    expect(
      parse(await exchange(port, 'GET /http://x/p HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n')).body,
    ).toBe('url=/http://x/p')
    expect(problem(await exchange(port, 'GET http://[x/p HTTP/1.1\r\nHost: api.test\r\n\r\n'))).toMatchObject({
      status: 400,
      detail: 'The request target is not a valid absolute URL.',
    })
  })
})

describe('what Node refuses, answered as problems', () => {
  it('answers a malformed request 400', async () => {
    const {port} = await start()
    expect(problem(await exchange(port, 'NOT HTTP AT ALL\r\n\r\n'))).toMatchObject({
      status: 400,
      detail: 'The request is not valid HTTP/1.1.',
    })
  })

  it('answers CONNECT 405 with Allow, where Node would close the connection unanswered', async () => {
    const {port} = await start()
    const raw = await exchange(port, 'CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n')
    expect(parse(raw).headers.allow).toBe('GET, HEAD')
    expect(problem(raw)).toMatchObject({status: 405, detail: expect.stringContaining('CONNECT is not supported')})
  })

  it('answers headers over the limit 431, naming the limit', async () => {
    const {port} = await start({maxHeaderBytes: 1024})
    expect(
      problem(await exchange(port, `GET / HTTP/1.1\r\nHost: a\r\nX-Big: ${'x'.repeat(2000)}\r\n\r\n`)),
    ).toMatchObject({
      status: 431,
      detail: 'The request line and headers are larger than the server reads (1024 bytes).',
    })
  })

  it('answers a body still arriving at the request timeout 408', async () => {
    const {port} = await start({requestTimeoutMs: 300, headersTimeoutMs: 300, timeoutCheckIntervalMs: 50})
    const socket = await open(port)
    const reply = readAll(socket)
    socket.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n12')
    expect(problem(await reply)).toMatchObject({
      status: 408,
      title: 'Request Timeout',
      detail: 'The request was not received in time.',
    })
  })

  it('closes the connection, writing nothing more, when a body times out after its response was sent or begun', async () => {
    const limits = {requestTimeoutMs: 300, headersTimeoutMs: 300, timeoutCheckIntervalMs: 50}
    // Answered at once, before its body (as a 405 to a POST is), and a stream begun before its body.
    const answeredAtOnce: RequestListener = (_request, response) =>
      void response.writeHead(405, {'Content-Length': '4'}).end('nope')
    const streaming: RequestListener = (_request, response) => {
      response.writeHead(200, {'Content-Type': 'text/event-stream'})
      response.write(': open\n\n')
    }
    for (const listener of [answeredAtOnce, streaming]) {
      const {port} = await start(limits, listener)
      const socket = await open(port)
      const closed = new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true))
        setTimeout(() => resolve(false), 5_000).unref()
      })
      const reply = readAll(socket)
      socket.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n12')
      expect(await closed, 'the server closed the connection').toBe(true)
      const raw = await reply
      expect(raw.match(/HTTP\/1\.1 \d+/g)).toHaveLength(1)
      expect(raw).not.toContain('408')
    }
  })

  it('answers an expectation other than 100-continue 417', async () => {
    const {port} = await start()
    expect(
      problem(await exchange(port, 'POST / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\nx')),
    ).toMatchObject({
      status: 417,
      detail: 'The server meets no expectation but 100-continue; got "teapot".',
    })
  })

  /** Starts a server whose answer to /slow waits, writes `requests` on one connection, lets /slow go after 100 ms and returns all the server wrote. */
  async function afterSlowAnswer(requests: string, answerOthers: RequestListener = () => undefined): Promise<string> {
    let finish: (() => void) | undefined
    const {port} = await start({}, (request, response) => {
      request.resume()
      if (request.url === '/slow') finish = () => response.writeHead(200, {'Content-Length': '4'}).end('slow')
      else answerOthers(request, response)
    })
    const socket = await open(port)
    const reply = readAll(socket)
    socket.write(requests)
    await sleep(100)
    finish?.()
    return reply
  }

  it('answers a malformed request pipelined after a valid one only after the valid one', async () => {
    const raw = await afterSlowAnswer('GET /slow HTTP/1.1\r\nHost: a\r\n\r\nBROKEN\r\n\r\n')
    expect(parse(raw)).toMatchObject({status: 200, body: 'slow'})
    expect(raw.slice(raw.indexOf('slow') + 4)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
  })

  it('answers it after a response that ended at once but waits behind a slow one', async () => {
    // /fast ends at once but is queued: the connection is still writing /slow.
    const raw = await afterSlowAnswer(
      'GET /slow HTTP/1.1\r\nHost: a\r\n\r\nGET /fast HTTP/1.1\r\nHost: a\r\n\r\nBROKEN\r\n\r\n',
      (_request, response) => response.writeHead(200, {'Content-Length': '4'}).end('fast'),
    )
    expect(raw.match(/HTTP\/1\.1 \d+|slow|fast/g)).toEqual([
      'HTTP/1.1 200',
      'slow',
      'HTTP/1.1 200',
      'fast',
      'HTTP/1.1 400',
    ])
  })

  it('does not hold a response it has ended on its connection until the next request', async () => {
    // Held, every open connection's last response would stay alive for the young-generation collector
    // to copy and promote. A weak reference and a forced collection show it is let go.
    let answered: WeakRef<object> | undefined
    const {port} = await start({}, (request, response) => {
      answered = new WeakRef(response)
      echo(request, response)
    })
    const socket = await open(port)
    const reply = readAll(socket)
    const answeredOnWire = new Promise((resolve) => socket.once('data', resolve))
    socket.write('GET /one HTTP/1.1\r\nHost: a\r\n\r\n')
    await answeredOnWire // answered (not a guess of how long that takes); the connection stays open
    await collectGarbage()
    expect(answered?.deref(), 'collected while its connection is open').toBeUndefined()
    expect(socket.destroyed).toBe(false)
    socket.destroy()
    expect(await reply).toContain('url=/one')
  })
})

describe('the body gate', () => {
  it('answers 503 with Retry-After to a body past the limit, and takes bodies again once one is read', async () => {
    const {port} = await start({maxBodiesInFlight: 1})
    const first = await open(port)
    const firstReply = readAll(first)
    first.write('POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nConnection: close\r\n\r\n12')
    await sleep(50)
    const refused = problem(await exchange(port, 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx'))
    expect(refused).toMatchObject({
      status: 503,
      detail: 'The server is receiving 1 request bodies already; retry in a second.',
    })
    expect(
      parse(await exchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).status,
      'no body: not counted',
    ).toBe(200)
    first.write('34')
    expect(parse(await firstReply).status).toBe(200)
    expect(
      parse(await exchange(port, 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx'))
        .status,
    ).toBe(200)
  })

  it('counts chunked bodies and bodies of some length, not an empty one, and lets each go once: read, answered or its socket closed', () => {
    const gate = bodyGate(1)
    expect(gate.admit(...withBody({'content-length': '0'}))).toBe(true)
    expect(gate.admit(...withBody({}))).toBe(true)
    const chunked = withBody({'transfer-encoding': 'chunked'})
    expect(gate.admit(...chunked)).toBe(true)
    expect(gate.inFlight()).toBe(1)
    expect(gate.admit(...withBody({'content-length': '5'}))).toBe(false)
    chunked[0].emit('end')
    chunked[1].emit('close')
    chunked[0].socket.emit('close') // released once only
    expect(gate.inFlight()).toBe(0)
    for (const release of [
      (request: IncomingMessage) => request.socket.emit('close'),
      (_: IncomingMessage, response: ServerResponse) => response.emit('close'),
    ]) {
      const next = withBody({'content-length': '5'})
      expect(gate.admit(...next)).toBe(true)
      expect(gate.admit(...withBody({'content-length': '5'}))).toBe(false)
      release(...next)
      expect(gate.inFlight()).toBe(0)
      expect(next[0].socket.listenerCount('close'), 'a keep-alive socket keeps no listener per request').toBe(0)
    }
  })

  it('releases once when the socket closing closes the response within the same event', () => {
    const gate = bodyGate(1)
    const [request, response] = withBody({'content-length': '5'})
    // Node closes a socket's pending response from its own 'close' listener, registered first.
    request.socket.once('close', () => response.emit('close'))
    expect(gate.admit(request, response)).toBe(true)
    request.socket.emit('close')
    expect(gate.inFlight()).toBe(0)
  })

  it('takes none with a limit of 0', () => {
    expect(bodyGate(0).admit(...withBody({'content-length': '1'}))).toBe(false)
  })

  it('lets a body go when it is answered unread and its client then leaves mid-body', async () => {
    const bodies = bodyGate(1)
    const refuseUnread: RequestListener = (request, response) => {
      if (request.method === 'GET')
        return void response
          .writeHead(200, {'Content-Length': String(bodies.inFlight())})
          .end(String(bodies.inFlight()))
      response.writeHead(405, {'Content-Length': '0'}).end()
    }
    const {port} = await start({maxBodiesInFlight: 1}, refuseUnread, {bodies})
    for (const leave of ['end', 'destroy'] as const) {
      const socket = await open(port)
      const reply = readAll(socket)
      socket.write('POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nhello world')
      await sleep(20)
      if (leave === 'end') socket.end()
      else socket.destroy()
      await reply
      await sleep(50)
      expect(bodies.inFlight(), `after ${leave}`).toBe(0)
      expect(
        parse(await exchange(port, 'POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx'))
          .status,
      ).toBe(405)
    }
  })
})

/** A request with `headers`, its response and its socket, as the gate sees them. */
function withBody(headers: Record<string, string>): [IncomingMessage & {socket: EventEmitter}, ServerResponse] {
  return [Object.assign(fakeRequest('POST', '/', headers), {socket: new EventEmitter()}), fakeResponse().response]
}

describe('connections per client', () => {
  it('answers the connection over the cap 429 and closes it; a closed connection makes room', async () => {
    const {port} = await start({maxConnectionsPerClient: 2})
    const held = [await open(port), await open(port)]
    await sleep(50)
    const raw = await readAll(await open(port))
    expect(problem(raw)).toMatchObject({
      status: 429,
      detail: 'This address already holds 2 connections to the server; reuse them (keep-alive) or close some.',
    })
    expect(parse(raw).headers['retry-after']).toBe('1')
    held[0]?.destroy()
    await sleep(50)
    expect(parse(await exchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).status).toBe(200)
    held[1]?.destroy()
    await sleep(50)
    const again = [await open(port), await open(port)]
    await sleep(50)
    for (const socket of again) expect(socket.destroyed).toBe(false)
    expect(
      parse(await exchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).status,
      'two new connections fill the cap again',
    ).toBe(429)
  })

  it('counts the connections still held after one of them closes', async () => {
    const {port} = await start({maxConnectionsPerClient: 2})
    const first = await open(port)
    await open(port)
    await sleep(30)
    first.destroy()
    await sleep(30)
    const third = await open(port)
    await sleep(30)
    expect(third.destroyed).toBe(false)
    expect(problem(await readAll(await open(port))), 'the second and third still hold both places').toMatchObject({
      status: 429,
    })
  })

  it('does not cap an exempt peer, nor anyone with a cap of 0', async () => {
    for (const [limits, options] of [
      [{maxConnectionsPerClient: 1}, {isTrustedProxy: (address: string) => address === '127.0.0.1'}],
      [{maxConnectionsPerClient: 0}, {}],
    ] as const) {
      const {port} = await start(limits, echo, options)
      await open(port)
      await sleep(30)
      expect(parse(await exchange(port, 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')).status).toBe(200)
    }
  })
})

describe('answerOnSocket', () => {
  it('destroys a socket it can no longer write to', () => {
    let destroyed = false
    answerOnSocket({writable: false, destroy: () => (destroyed = true)} as never, BASE, 400, 'x')
    expect(destroyed).toBe(true)
  })

  it('writes the whole response with extra headers, reads what the client still sends, then closes', async () => {
    const {port} = await start({maxConnectionsPerClient: 1})
    await open(port)
    await sleep(30)
    const socket = await open(port)
    const reply = readAll(socket)
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n'.repeat(100))
    const raw = await reply
    expect(raw).toMatch(
      /^HTTP\/1\.1 429 Too Many Requests\r\nContent-Type: application\/problem\+json; charset=utf-8\r\nContent-Length: \d+\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nRetry-After: 1\r\nConnection: close\r\n\r\n\{/,
    )
  })
})

describe('shutdown', () => {
  it('lets an answer in flight finish, and resolves once its connection has ended (at the keep-alive timeout)', async () => {
    let answer: (() => void) | undefined
    const {port, http} = await start({keepAliveTimeoutMs: 200}, (request, response) => {
      request.resume()
      answer = () => response.writeHead(200, {'Content-Length': '2'}).end('ok')
    })
    const socket = await open(port)
    const reply = readAll(socket)
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n')
    await sleep(50)
    let closed = false
    const down = http.shutDown(5000).then(() => (closed = true))
    await sleep(50)
    expect(closed).toBe(false)
    answer?.()
    const parsed = parse(await reply)
    expect(parsed.status).toBe(200)
    await down
    expect(closed).toBe(true)
  })

  it('marks responses started while closing Connection: close', async () => {
    const {port, http} = await start({}, (request, response) => {
      request.resume()
      setTimeout(() => response.writeHead(200, {'Content-Length': '2'}).end('ok'), 100)
    })
    const socket = await open(port)
    const reply = readAll(socket)
    const down = http.shutDown(5000)
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n')
    expect(parse(await reply).headers.connection).toBe('close')
    await down
  })

  it('forces connections closed at the timeout, not before', async () => {
    const {port, http} = await start({}, (request) => request.resume())
    const socket = await open(port)
    // The handler never answers: only the forced close ends this connection.
    const reply = readAll(socket, 10_000)
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n')
    await sleep(50)
    // The timeout on a fake clock, the sockets real: when the force comes does not depend on the machine's load.
    vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
    let down = false
    try {
      void http.shutDown(200).then(() => (down = true))
      vi.advanceTimersByTime(199)
      await sleep(50)
      expect(down, 'shut down before the timeout').toBe(false)
      expect(socket.readableEnded, 'closed before the timeout').toBe(false)
      vi.advanceTimersByTime(1)
    } finally {
      vi.useRealTimers()
    }
    await expect.poll(() => down, {message: 'shut down once the timeout ran out'}).toBe(true)
    await reply
    expect(socket.destroyed || socket.readableEnded, 'closed by the server, not by the client giving up').toBe(true)
  })
})

describe('refusals and targets, to the letter', () => {
  it('tells a client refused by the body gate to retry in a second', async () => {
    const {port} = await start({maxBodiesInFlight: 0})
    const raw = await exchange(port, 'POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx')
    expect(problem(raw)).toMatchObject({status: 503})
    expect(parse(raw).headers['retry-after']).toBe('1')
  })

  it('quotes at most 100 characters of an expectation it does not meet', async () => {
    const {port} = await start()
    const expectation = `x${'y'.repeat(150)}`
    expect(
      problem(
        await exchange(port, `POST / HTTP/1.1\r\nHost: a\r\nExpect: ${expectation}\r\nContent-Length: 1\r\n\r\nx`),
      ),
    ).toMatchObject({
      status: 417,
      detail: `The server meets no expectation but 100-continue; got "${expectation.slice(0, 100)}".`,
    })
  })

  it('serves an absolute-form target that ends in a slash as its path, and passes the asterisk form on as it is', async () => {
    const {port} = await start()
    expect(
      parse(await exchange(port, 'GET http://elsewhere.test/ HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n'))
        .body,
    ).toBe('url=/')
    expect(
      parse(await exchange(port, 'OPTIONS * HTTP/1.1\r\nHost: api.test\r\nConnection: close\r\n\r\n')),
    ).toMatchObject({status: 200, body: 'url=*'})
  })

  it('counts only Host lines as Host, not other headers of four letters', async () => {
    const {port} = await start()
    expect(
      parse(
        await exchange(
          port,
          'GET /a HTTP/1.1\r\nHost: api.test\r\nFrom: a@b.test\r\nDate: Tue, 01 Jan 2030 00:00:00 GMT\r\nConnection: close\r\n\r\n',
        ),
      ),
    ).toMatchObject({status: 200, body: 'url=/a'})
  })
})
