// What callService gives back from another service, over a real loopback server in this process:
// the request as sent, the answer's status, headers and the start of its body, read up to a bound.
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import {afterEach, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {callService, succeeded} from '../../server/outbound/service-call.ts'

const servers: Server[] = []
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
})

async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = z.object({port: z.number()}).parse(server.address())
  return `http://127.0.0.1:${port}`
}

describe('callService', () => {
  it('sends the method, headers and body, and gives the status, headers and body as UTF-8', async () => {
    let received: {method?: string; type?: string; body: string} = {body: ''}
    const origin = await serve((request, response) => {
      let body = ''
      request.setEncoding('utf8')
      request.on('data', (chunk: string) => (body += chunk))
      request.on('end', () => {
        received = {method: request.method, type: request.headers['content-type'], body}
        response.writeHead(202, {'Content-Type': 'text/plain; charset=utf-8', 'X-Hub': 'yes'}).end('התקבל')
      })
    })
    const answer = await callService(`${origin}/hub`, {
      method: 'POST',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: 'hub.mode=publish',
    })
    expect(received).toEqual({method: 'POST', type: 'application/x-www-form-urlencoded', body: 'hub.mode=publish'})
    expect(answer.status).toBe(202)
    expect(answer.headers['x-hub']).toBe('yes')
    expect(answer.text).toBe('התקבל')
    expect(succeeded(answer)).toBe(true)
  })

  it('reads an endless answer only up to its bound, then drops the connection', async () => {
    let closed = false
    const origin = await serve((_request, response) => {
      response.writeHead(500)
      const chunk = Buffer.alloc(16 * 1024, 'x')
      const timer = setInterval(() => response.write(chunk), 5)
      response.once('close', () => {
        closed = true
        clearInterval(timer)
      })
    })
    const answer = await callService(origin, {method: 'GET'}, {maxAnswerBytes: 100, timeoutMs: 30_000})
    expect(answer.status).toBe(500)
    expect(answer.text).toBe('x'.repeat(100))
    expect(succeeded(answer)).toBe(false)
    const deadline = Date.now() + 10_000
    while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(closed).toBe(true)
  })

  it('gives a body exactly as long as the bound, and a shorter one whole', async () => {
    const origin = await serve((request, response) => response.end(request.url === '/ten' ? '0123456789' : '012'))
    expect((await callService(`${origin}/ten`, {method: 'GET'}, {maxAnswerBytes: 10})).text).toBe('0123456789')
    expect((await callService(`${origin}/three`, {method: 'GET'}, {maxAnswerBytes: 10})).text).toBe('012')
  })

  it('lets a call on a kept-alive connection take longer than the connect timeout', async () => {
    const origin = await serve((_request, response) => {
      setTimeout(() => response.end('ok'), 400)
    })
    const bounds = {connectTimeoutMs: 150, timeoutMs: 30_000}
    expect((await callService(origin, {method: 'GET'}, bounds)).text).toBe('ok')
    // The second call goes out on the first one's connection (Node's global agent keeps it alive).
    expect((await callService(origin, {method: 'GET'}, bounds)).text).toBe('ok')
  })

  it('refuses a URL that is not http: or https:, and rejects when nothing listens', async () => {
    await expect(callService('ftp://hub.test/', {method: 'POST'})).rejects.toThrow('ftp: is not http: or https:')
    const origin = await serve((_request, response) => response.end())
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
    await expect(callService(origin, {method: 'GET'})).rejects.toThrow(/ECONNREFUSED/)
  })
})

describe('succeeded', () => {
  it('is true for a 2xx only', () => {
    const answer = (status: number) => ({status, headers: {}, text: ''})
    expect([199, 200, 204, 299, 300, 404, 500].map((status) => succeeded(answer(status)))).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
      false,
    ])
  })
})

describe('callService over https', () => {
  it('takes an https: URL: the call is made, and fails only for want of a listener', async () => {
    const origin = await serve((_request, response) => response.end())
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
    await expect(callService(origin.replace('http:', 'https:'), {method: 'GET'})).rejects.toThrow(/ECONNREFUSED/)
  })
})
