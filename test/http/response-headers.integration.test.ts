// A response's headers over real HTTP: the fixed lines and its own reach the wire once, as written,
// with Node's own framing and connection headers around them, on keep-alive connections and on a
// plain ServerResponse.
import {createServer, IncomingMessage, ServerResponse, type Server} from 'node:http'
import {connect, Socket} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {
  FixedHeadResponse,
  fixedHeaders,
  fixedHeadsWork,
  joinFixedHeaders,
  ResponseHeaders,
} from '../../server/http/response-headers.ts'

const VARIANT = fixedHeaders(['ETag', '"abc"', 'Content-Type', 'application/json; charset=utf-8'])
const SHARED = fixedHeaders(['Access-Control-Allow-Origin', '*', 'X-Content-Type-Options', 'nosniff'])
const BODY = Buffer.from('{"שלום":"עולם"}')

let server: Server | undefined
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())))

async function listen(answer: (response: ServerResponse) => void, withFixedHeads = true): Promise<number> {
  server = createServer(withFixedHeads ? {ServerResponse: FixedHeadResponse} : {}, (_request, response) =>
    answer(response),
  )
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

/** Sends `requests` raw on one connection and returns every byte the server wrote until it has `responses` bodies. */
function exchange(port: number, requests: string, responses: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(requests))
    let received = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const text = received.toString('utf8')
      if (text.split(BODY.toString('utf8')).length - 1 >= responses || (responses === 0 && text.includes('\r\n\r\n'))) {
        socket.destroy()
        resolve(text)
      }
    })
    socket.on('error', reject)
  })
}

const GET = 'GET / HTTP/1.1\r\nHost: a\r\n\r\n'

describe('a head with fixed lines', () => {
  it('carries them once, as written, with Node framing the body and keeping the connection', async () => {
    let count = 0
    const port = await listen((response) => {
      count += 1
      new ResponseHeaders(['X-Request-Id', `r${count}`], SHARED).writeHead(response, 200, VARIANT, [
        'Content-Length',
        String(BODY.length),
      ])
      response.end(BODY)
    })
    const text = await exchange(port, GET + GET, 2)
    const [first = '', second = ''] = text.split('HTTP/1.1 ').filter(Boolean)
    const head = first.slice(0, first.indexOf('\r\n\r\n'))
    expect(head.split('\r\n').slice(0, 8)).toEqual([
      '200 OK',
      'ETag: "abc"',
      'Content-Type: application/json; charset=utf-8',
      'Access-Control-Allow-Origin: *',
      'X-Content-Type-Options: nosniff',
      'X-Request-Id: r1',
      `Content-Length: ${BODY.length}`,
      expect.stringMatching(/^Date: /),
    ])
    expect(head).toContain('Connection: keep-alive')
    expect(head.match(/ETag/g)).toHaveLength(1)
    expect(first.endsWith(BODY.toString('utf8'))).toBe(true)
    expect(second, 'the second response on the same connection has its own head').toContain('X-Request-Id: r2')
    expect(second.match(/ETag: "abc"/g)).toHaveLength(1)
  })

  it('does not carry them into the next head when writeHead throws', async () => {
    const port = await listen((response) => {
      response.writeHead(200, ['Content-Length', String(BODY.length)])
      expect(() => new ResponseHeaders([], SHARED).writeHead(response, 200, VARIANT)).toThrow(/headers/i)
      response.end(BODY)
    })
    const text = await exchange(port, GET + GET, 2)
    expect(text).not.toContain('ETag')
  })

  it('goes out as a header list on a response that is not a FixedHeadResponse', async () => {
    const port = await listen((response) => {
      new ResponseHeaders(['X-Request-Id', 'r']).writeHead(response, 304, VARIANT)
      response.end()
    }, false)
    const text = await exchange(port, GET, 0)
    expect(text).toMatch(
      /^HTTP\/1\.1 304 Not Modified\r\nETag: "abc"\r\nContent-Type: application\/json; charset=utf-8\r\nX-Request-Id: r\r\n/,
    )
  })
})

describe('the response class', () => {
  it("takes the server's options as Node's own responses do", async () => {
    // With rejectNonStandardBodyWrites, a body written to a HEAD response throws.
    let refused: boolean | undefined
    server = createServer(
      {ServerResponse: FixedHeadResponse, rejectNonStandardBodyWrites: true},
      (_request, response) => {
        refused = false
        try {
          response.write('x')
        } catch {
          refused = true
        }
        response.end()
      },
    )
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    expect((await fetch(`http://127.0.0.1:${address.port}/`, {method: 'HEAD'})).status).toBe(200)
    expect(refused).toBe(true)
  })
})

describe('fixed header lines', () => {
  it('are checked against the HTTP grammar once, as writeHead would check them', () => {
    expect(() => fixedHeaders(['X-Bad', 'a\r\nSet-Cookie: b'])).toThrow(/Invalid character/)
    expect(() => fixedHeaders(['Bad Name', 'a'])).toThrow(/valid HTTP token/)
    expect(() => fixedHeaders(['X-Odd'])).toThrow(/pairs/)
  })

  it('leave out the headers Node reads to frame the body or keep the connection', () => {
    for (const name of ['Content-Length', 'transfer-encoding', 'Connection', 'Date', 'Keep-Alive'])
      expect(() => fixedHeaders([name, '1']), name).toThrow(/read by Node/)
  })
})

describe('the check at start', () => {
  it('finds that the installed Node takes the lines, and that a response that drops them does not', () => {
    expect(fixedHeadsWork()).toBe(true)
    class Dropping extends FixedHeadResponse {
      override _storeHeader(firstLine: string, headers: string[] | null | undefined): void {
        ServerResponse.prototype._storeHeader.call(this, firstLine.slice(0, firstLine.indexOf('\r\n') + 2), headers)
      }
    }
    expect(fixedHeadsWork(Dropping)).toBe(false)
  })
})

describe('fixed header lines, joined', () => {
  it('are the head lines of the list, and two joined are both, in order', () => {
    // Made here, not at import, so that the lines are joined while the test runs.
    expect(fixedHeaders(['ETag', '"abc"', 'Content-Type', 'application/json; charset=utf-8']).lines).toBe(
      'ETag: "abc"\r\nContent-Type: application/json; charset=utf-8\r\n',
    )
    const joined = joinFixedHeaders(VARIANT, SHARED)
    expect(joined.list).toEqual([...VARIANT.list, ...SHARED.list])
    expect(joined.lines).toBe(`${VARIANT.lines}Access-Control-Allow-Origin: *\r\nX-Content-Type-Options: nosniff\r\n`)
  })

  it('leave nothing behind for the next plain writeHead of the process', () => {
    const headOf = (response: FixedHeadResponse): unknown => Reflect.get(response, '_header')
    const first = new FixedHeadResponse(new IncomingMessage(new Socket()))
    new ResponseHeaders().writeHead(first, 200, VARIANT, ['Content-Length', '0'])
    const second = new FixedHeadResponse(new IncomingMessage(new Socket()))
    second.writeHead(204, ['X-Own', '1'])
    expect(headOf(second)).toMatch(/^HTTP\/1\.1 204 No Content\r\nX-Own: 1\r\n/)
  })
})

describe('the check at start, failing', () => {
  it('finds that a response class that throws does not take the lines', () => {
    class Throwing extends FixedHeadResponse {
      override writeHeadWithFixed(): void {
        throw new Error('changed inside')
      }
    }
    expect(fixedHeadsWork(Throwing)).toBe(false)
  })
})

describe("a response's headers as one list", () => {
  it('are the shared lines, then its own in the order they were added', () => {
    const headers = new ResponseHeaders(['X-Request-Id', 'r'], SHARED)
    headers.add('Catalog-Version', 'v1')
    expect(headers.list()).toEqual([...SHARED.list, 'X-Request-Id', 'r', 'Catalog-Version', 'v1'])
    expect(headers.own).toEqual(['X-Request-Id', 'r', 'Catalog-Version', 'v1'])
    expect(new ResponseHeaders().list()).toEqual([])
  })
})
