import {EventEmitter} from 'node:events'
import {IncomingMessage, type ServerResponse} from 'node:http'
import {Socket} from 'node:net'

/** What a handler wrote to a response that never touches a socket. */
export interface Written {
  status: number | undefined
  /** Header names lowercased; a name given twice keeps both values, joined with ', '. */
  headers: Record<string, string>
  /** The flat name, value list as passed to writeHead, in order. */
  headerList: string[]
  body: Buffer | undefined
  ended: boolean
  /** What `write` was given, in order (a stream's events). */
  chunks: string[]
  /** While true, what is written stays queued (`writableLength` grows), as for a client that stopped reading. */
  stalled: boolean
  /** While true, `end` never finishes (no 'finish' or 'close'), as when the kernel's buffers are full. */
  endNeverFinishes: boolean
  destroyed: boolean
}

/** A ServerResponse stand-in recording writeHead, setHeader, write and end (and emitting 'finish' and 'close' on end). */
export function fakeResponse(): {response: ServerResponse; written: Written} {
  const written: Written = {
    status: undefined,
    headers: {},
    headerList: [],
    body: undefined,
    ended: false,
    chunks: [],
    stalled: false,
    endNeverFinishes: false,
    destroyed: false,
  }
  const set = (name: string, value: string) => {
    const key = name.toLowerCase()
    written.headers[key] = written.headers[key] === undefined ? value : `${written.headers[key]}, ${value}`
  }
  const emitter = new EventEmitter()
  const response = Object.assign(emitter, {
    headersSent: false,
    writableFinished: false,
    writableLength: 0,
    get destroyed() {
      return written.destroyed
    },
    write(chunk: string) {
      written.chunks.push(chunk)
      if (written.stalled) response.writableLength += Buffer.byteLength(chunk)
      return !written.stalled
    },
    destroy() {
      written.destroyed = true
      emitter.emit('close')
      return response
    },
    setHeader(name: string, value: string | number) {
      set(name, String(value))
      return response
    },
    getHeader(name: string) {
      return written.headers[name.toLowerCase()]
    },
    writeHead(status: number, headers: readonly string[] = []) {
      written.status = status
      written.headerList = [...headers]
      for (let index = 0; index + 1 < headers.length; index += 2)
        set(String(headers[index]), String(headers[index + 1]))
      response.headersSent = true
      return response
    },
    end(body?: Buffer | string) {
      written.body = body === undefined ? undefined : Buffer.from(body)
      written.ended = true
      if (written.endNeverFinishes) return response
      response.writableFinished = true
      emitter.emit('finish')
      emitter.emit('close')
      return response
    },
  })
  return {response: response as unknown as ServerResponse, written}
}

/** A real request of no connection: a method, a URL and headers (lowercase names), from 127.0.0.1. */
/** `method` undefined is a request the parser gave no method, as `IncomingMessage.method` allows. */
export function fakeRequest(
  method: string | undefined,
  url: string,
  headers: Record<string, string> = {},
): IncomingMessage {
  const socket = new Socket()
  Object.defineProperty(socket, 'remoteAddress', {value: '127.0.0.1', configurable: true})
  const request = new IncomingMessage(socket)
  request.method = method
  request.url = url
  request.headers = headers
  request.httpVersion = '1.1'
  request.rawHeaders = Object.entries(headers).flat()
  return request
}
