// Integration over raw TCP: request forms a browser never sends but HTTP/1.1 allows or a client
// gets wrong (absolute-form targets, a missing or malformed Host, unknown expectations, pipelining),
// each answered with the same rules and problem documents as every other request.
import {connect} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../../support/server.ts'

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** Writes `raw` on one connection and collects everything the server sends until it closes (or 2 s pass). */
async function exchange(baseUrl: string, raw: string): Promise<string> {
  const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1')
  socket.write(raw)
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy()
      resolve()
    }, 2000)
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    socket.once('close', done)
    socket.once('error', done)
  })
  return Buffer.concat(chunks).toString('utf8')
}

// A body need not end with a newline, so the next status line may follow it on the same line.
const statusLines = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]))
const problemTypes = (text: string) => [...text.matchAll(/^Content-Type: (.*)$/gim)].map((match) => match[1]?.trim())

describe('request forms off the beaten path', () => {
  it('answers an absolute-form target as its path, sunset rules included', async () => {
    server = await startTestServer({
      environment: {
        DEPRECATION_DATE: '2020-01-01',
        SUNSET_DATE: '2021-01-01',
        SUCCESSOR_URL: 'https://api.example/api/v2',
      },
      observed: true,
    })
    const answer = await exchange(
      server.baseUrl,
      'GET http://anything.example/api/v1/episodes.json HTTP/1.1\r\nHost: anything.example\r\nConnection: close\r\n\r\n',
    )
    expect(statusLines(answer)).toEqual([410])
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    expect(metrics).toContain('catalog_http_requests_total{route="/api/v1/episodes.json",status="410"} 1')
    // Whatever the scheme: the path is what is served, so the sunset applies to it.
    for (const target of [
      'ws://x/api/v1/episodes.json',
      'x://y/api/v1/episodes.json',
      'HTTPS://x/api/v1/voices.json',
    ]) {
      const other = await exchange(server.baseUrl, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      expect(statusLines(other), target).toEqual([410])
    }
  })

  it('answers a current absolute-form target with the document', async () => {
    server = await startTestServer()
    const answer = await exchange(
      server.baseUrl,
      'GET http://127.0.0.1/api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
    )
    expect(statusLines(answer)).toEqual([200])
    expect(answer).toContain('"authentication":"none"')
  })

  it('refuses HTTP/1.1 without Host, a malformed or repeated Host and an unknown expectation with problems', async () => {
    server = await startTestServer()
    const noHost = await exchange(server.baseUrl, 'GET /api/v1/index.json HTTP/1.1\r\nConnection: close\r\n\r\n')
    const badHost = await exchange(
      server.baseUrl,
      'GET /api/v1/index.json HTTP/1.1\r\nHost: a b/c\r\nConnection: close\r\n\r\n',
    )
    const expectation = await exchange(
      server.baseUrl,
      'GET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: bogus\r\nConnection: close\r\n\r\n',
    )
    const twoHosts = await exchange(
      server.baseUrl,
      'GET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nHOST: evil.example\r\nConnection: close\r\n\r\n',
    )
    expect([
      ...statusLines(noHost),
      ...statusLines(badHost),
      ...statusLines(twoHosts),
      ...statusLines(expectation),
    ]).toEqual([400, 400, 400, 417])
    for (const answer of [noHost, badHost, twoHosts, expectation]) {
      expect(problemTypes(answer)).toEqual(['application/problem+json; charset=utf-8'])
      expect(answer).toMatch(/"detail":"[^"]+"/)
    }
  })

  it('answers a malformed Host on POST /mcp with a problem when listening beyond loopback', async () => {
    server = await startTestServer({environment: {HOST: '0.0.0.0'}})
    const body = JSON.stringify({jsonrpc: '2.0', id: 1, method: 'tools/list', params: {}})
    const answer = await exchange(
      server.baseUrl,
      `POST /mcp HTTP/1.1\r\nHost: [::1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    )
    expect(statusLines(answer)).toEqual([400])
    expect(server.loggedErrors).toEqual([])
  })

  it('answers a valid pipelined request before refusing the malformed one after it', async () => {
    server = await startTestServer()
    const answer = await exchange(
      server.baseUrl,
      'GET /api/v1/all.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api/v1/index.json HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n',
    )
    expect(statusLines(answer)).toEqual([200, 400])
    expect(answer).toContain('"counts":')
  })
})
