import type {IncomingMessage, ServerResponse} from 'node:http'
import type {Socket} from 'node:net'
import {toWebRequest} from '@modelcontextprotocol/node'
import {InMemoryServerEventBus, type McpHttpHandler, type ServerEventBus} from '@modelcontextprotocol/server'
import type {Logger} from 'pino'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import {changedItems} from '../snapshot/changed-items.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {itemResourceUri} from './resources.ts'

// `subscriptions/listen` (MCP 2026-07-28): each stream is one POST answered with server-sent events
// that stays open. The SDK serves the protocol on it; this module decides who may hold one, keeps a
// client that stops reading from growing the process without bound, tells the streams what each
// newly served snapshot changed, and ends them gracefully at shutdown.

export interface ListenLimits {
  /** Streams open at once, across all clients. */
  maxStreams: number
  /** Streams one client address may hold (an IPv6 client: its /56), a small share of `maxStreams`. */
  maxStreamsPerClient: number
  /** Events waiting for a client that does not read, past what its socket holds; one more and it is dropped. */
  maxQueuedEvents: number
}

/** How long a stream is given to take its graceful close at shutdown before it is cut. */
const CLOSE_GRACE_MS = 1000

const LISTEN_LIMITS: ListenLimits = {maxStreams: 1024, maxStreamsPerClient: 1024 / 16, maxQueuedEvents: 256}

/** The protocol's in-band refusal of a listen (the SDK's own code for its capacity limit). */
const LIMIT_REACHED = -32603

export interface ListenStreams {
  /** Where the SDK's listen streams take their events from. */
  readonly bus: ServerEventBus
  /** Streams open now. */
  readonly openCount: number
  /**
   * Serves one `subscriptions/listen` request from `client` (its address key) with `handler`: refused
   * in-band past a limit or while closing, otherwise streamed until the client or the server ends it.
   */
  serve(
    request: IncomingMessage,
    response: ServerResponse,
    message: ListenMessage,
    client: string,
    handler: McpHttpHandler,
  ): Promise<void>
  /** The publish path's step: tells the streams what `snapshot` changed since the last one served. */
  served(snapshot: Snapshot): void
  /** Ends every stream with the protocol's graceful close (the empty listen result), then its connection. */
  close(): Promise<void>
}

/** The part of a listen request this module reads. */
export interface ListenMessage {
  id: string | number
  params?: {notifications?: {resourceSubscriptions?: unknown}}
}

export function isListenMessage(message: unknown): message is ListenMessage {
  if (typeof message !== 'object' || message === null) return false
  const {method, id} = message as {method?: unknown; id?: unknown}
  return method === 'subscriptions/listen' && (typeof id === 'string' || typeof id === 'number')
}

interface OpenStream {
  client: string
  response: ServerResponse
  socket: Socket | null
  subscribed: readonly string[]
}

export function createListenStreams(options: {
  publicBaseUrl: string
  logger: Logger
  limits?: ListenLimits
}): ListenStreams {
  const {publicBaseUrl} = options
  const limits = options.limits ?? LISTEN_LIMITS
  const log = options.logger.child({component: 'mcp-listen'})
  const bus = new InMemoryServerEventBus((error) => log.error({err: error}, error.message))
  const open = new Set<OpenStream>()
  const perClient = new Map<string, number>()
  // How many open streams asked for each resource URI: only those are announced, so an edit of
  // the whole catalog costs nothing for URIs nobody follows.
  const followed = new Map<string, number>()
  const handlers = new Set<McpHttpHandler>()
  let closing = false
  let last: Snapshot | undefined

  const refusal = (client: string): string | undefined => {
    if (closing) return 'Subscription limit reached: the server is shutting down; listen again in a moment.'
    if (open.size >= limits.maxStreams)
      return `Subscription limit reached: ${limits.maxStreams} listen streams are open on this server; retry later.`
    if ((perClient.get(client) ?? 0) >= limits.maxStreamsPerClient)
      return `Subscription limit reached: your address holds ${limits.maxStreamsPerClient} listen streams, the most one client may; close one before opening another.`
    return undefined
  }

  const add = (stream: OpenStream) => {
    open.add(stream)
    perClient.set(stream.client, (perClient.get(stream.client) ?? 0) + 1)
    for (const uri of stream.subscribed) followed.set(uri, (followed.get(uri) ?? 0) + 1)
  }
  const remove = (stream: OpenStream) => {
    if (!open.delete(stream)) return
    const count = (perClient.get(stream.client) ?? 1) - 1
    if (count > 0) perClient.set(stream.client, count)
    else perClient.delete(stream.client)
    for (const uri of stream.subscribed) {
      const following = (followed.get(uri) ?? 1) - 1
      if (following > 0) followed.set(uri, following)
      else followed.delete(uri)
    }
  }

  return {
    bus,
    get openCount() {
      return open.size
    },
    async serve(request, response, message, client, handler) {
      const refused = refusal(client)
      if (refused) {
        log.warn({client}, refused)
        response.writeHead(200, {'Content-Type': 'application/json', 'Cache-Control': 'no-store'})
        response.end(JSON.stringify({jsonrpc: '2.0', id: message.id, error: {code: LIMIT_REACHED, message: refused}}))
        return
      }
      handlers.add(handler)
      const stream: OpenStream = {client, response, socket: response.socket, subscribed: subscribedUris(message)}
      add(stream)
      const abort = new AbortController()
      response.once('close', () => {
        remove(stream)
        abort.abort()
      })
      try {
        const answer = await handler.fetch(await toWebRequest(request, message, {signal: abort.signal}), {
          parsedBody: message,
        })
        const headers = Object.fromEntries(answer.headers)
        // The connection is the HTTP server's to manage (see http.ts, withoutKeepAliveHeader).
        delete headers.connection
        response.writeHead(answer.status, headers)
        if (answer.body) await pipeBounded(answer.body, response, limits.maxQueuedEvents, log)
        if (!response.destroyed) response.end()
      } catch (error) {
        log.error({err: error}, 'a listen stream failed')
        response.destroy()
      }
    },
    served(snapshot) {
      const previous = last
      last = snapshot
      if (!previous || previous === snapshot) return
      const changed = changedItems(previous, snapshot)
      if (changed.some((item) => item.change !== 'edited')) bus.publish({kind: 'resources_list_changed'})
      if (followed.size === 0) return
      const uris = changed.map((item) => itemResourceUri(publicBaseUrl, item.collection, item.slug))
      // The API documents that list items, as the purge plan finds them.
      const api = (path: string) => `${publicBaseUrl}/api/v1/${path}`
      if (previous.version !== snapshot.version) uris.push(api('all.json'))
      for (const collection of COLLECTION_NAMES)
        if (previous.collectionDigest(collection) !== snapshot.collectionDigest(collection))
          uris.push(api(`${collection}.json`))
      if (previous.representation('index.json')?.etag !== snapshot.representation('index.json')?.etag)
        uris.push(api('index.json'))
      for (const uri of uris) if (followed.has(uri)) bus.publish({kind: 'resource_updated', uri})
    },
    async close() {
      closing = true
      const streams = [...open]
      // After its last bytes the connection ends too: an idle keep-alive connection would hold the
      // HTTP server's shutdown until its timeout.
      for (const stream of streams) stream.response.once('finish', () => stream.socket?.end())
      await Promise.all([...handlers].map((handler) => handler.close()))
      // A client that stopped reading never takes its close frame: cut after a moment, so it cannot
      // hold the process's shutdown (and the snapshot's last save) until the shutdown timeout.
      const cut = setTimeout(() => {
        for (const stream of streams) if (!stream.response.writableFinished) stream.response.destroy()
      }, CLOSE_GRACE_MS).unref()
      if (streams.every((stream) => stream.response.writableFinished)) clearTimeout(cut)
    },
  }
}

/** The resource URIs a listen request subscribes to (`resourceSubscriptions`), as far as they are strings. */
function subscribedUris(message: ListenMessage): string[] {
  const uris = message.params?.notifications?.resourceSubscriptions
  return Array.isArray(uris) ? [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))] : []
}

/**
 * Copies the SDK's event stream to the response as fast as the SDK writes it (its own queue never
 * grows), holding events the socket cannot take yet in a queue of at most `maxQueued`: one more
 * and the client, which has stopped reading, loses the connection and its place.
 */
async function pipeBounded(
  body: ReadableStream<Uint8Array>,
  response: ServerResponse,
  maxQueued: number,
  log: Logger,
): Promise<void> {
  const queue: Uint8Array[] = []
  const flush = () => {
    while (queue.length > 0 && !response.writableNeedDrain) response.write(queue.shift())
  }
  response.on('drain', flush)
  const reader = body.getReader()
  try {
    for (;;) {
      const {done, value} = await reader.read()
      if (response.destroyed) return
      if (done) {
        // The last events (a graceful close among them) go into the socket's buffer, behind the rest.
        for (const chunk of queue.splice(0)) response.write(chunk)
        return
      }
      if (!response.writableNeedDrain && queue.length === 0) {
        response.write(value)
        continue
      }
      if (queue.length >= maxQueued) {
        log.warn(`dropped a listen stream whose client stopped reading (${maxQueued} events waiting)`)
        response.destroy()
        return
      }
      queue.push(value)
    }
  } finally {
    response.off('drain', flush)
    reader.cancel().catch(() => undefined)
  }
}
