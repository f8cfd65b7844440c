import type {IncomingMessage, ServerResponse} from 'node:http'
import {changedSince} from '../snapshot/changes-page.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {buildProblem, sendProblem} from './problem.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'

/** `GET /api/v1/events`: one server-sent event per served version. */
export const EVENTS_PATH = '/api/v1/events'

export interface EventStreamLimits {
  /** Streams open at once, across all clients (EVENT_STREAMS_MAX). */
  maxStreams: number
  /** Bytes a stream may have waiting for its client before it is dropped. */
  maxQueuedBytes: number
  /** How often a comment is written, so proxies do not cut an idle stream. */
  heartbeatMs: number
  /**
   * How long a stream stays open at most (each gets between three quarters of it and all of it, so
   * streams opened together do not all end together). A client that stops reading fills the
   * kernel's buffers with heartbeats for days before its queue reaches `maxQueuedBytes`; ended, an
   * EventSource reconnects after `retry` and resumes by Last-Event-ID, and one that stopped reading
   * does not.
   */
  maxAgeMs: number
}

const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = {
  maxStreams: 10_000,
  maxQueuedBytes: 256 * 1024,
  heartbeatMs: 10_000,
  maxAgeMs: 30 * 60_000,
}

/** One client address holds at most a sixteenth of the streams: ten of them leave room for others (as MCP's listen streams). */
const CLIENT_SHARE = 16

export interface EventStreamsOptions {
  /** The snapshot served now (the store's). */
  current: () => Snapshot
  publicBaseUrl: string
  /** The client's address as the rate limit counts it (proxies trusted by TRUST_PROXY). */
  clientOf: (request: IncomingMessage) => string
  limits?: Partial<EventStreamLimits>
}

export interface EventStreams {
  /** Answers `GET /api/v1/events`: refuses past the limits, else holds the stream open. */
  handle(request: IncomingMessage, response: ServerResponse): void
  /** A snapshot is served: its version's event goes to every stream. */
  served(snapshot: Snapshot): void
  /** Streams open now. */
  count(): number
  /** Ends every stream (at shutdown): each response ends, and its connection with it. */
  close(): void
}

interface Stream {
  response: ServerResponse
  client: string
  /** Date.now() at which the stream is ended, for its client to reconnect. */
  endsAt: number
}

const TYPE_OF = {episodes: 'episode', meetups: 'meetup', voices: 'voice'} as const

/**
 * Live events, as Sanity's Live Content API sends sync tags: each event's `id` is the version
 * (`Catalog-Version`) and its data `{version, changes: [{type, slug, deleted}]}`; a client that
 * reconnects with `Last-Event-ID` (or `?since=`) gets what it missed as one collapsed event, or a
 * `reset` event when its version is older than the history. Bounded: a global limit and a share per
 * client address (503 and 429 problems past them), a client that stops reading is dropped once
 * `maxQueuedBytes` wait for it, every stream ends within `maxAgeMs` (its client reconnects), and one
 * heartbeat timer serves every stream.
 */
export function createEventStreams(options: EventStreamsOptions): EventStreams {
  const limits = {...DEFAULT_EVENT_STREAM_LIMITS, ...options.limits}
  const perClient = Math.max(1, Math.floor(limits.maxStreams / CLIENT_SHARE))
  const open = new Set<Stream>()
  const byClient = new Map<string, number>()
  let last: Snapshot | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let closed = false

  const drop = (stream: Stream) => {
    if (!open.delete(stream)) return
    const held = (byClient.get(stream.client) ?? 1) - 1
    if (held > 0) byClient.set(stream.client, held)
    else byClient.delete(stream.client)
    if (open.size === 0) {
      clearInterval(heartbeat)
      heartbeat = undefined
    }
  }
  const write = (stream: Stream, text: string) => {
    if (stream.response.destroyed) {
      drop(stream)
      return
    }
    stream.response.write(text)
    // The client stopped reading: what waits for it is bounded, and its place freed.
    if (stream.response.writableLength > limits.maxQueuedBytes) {
      stream.response.destroy()
      drop(stream)
    }
  }
  // Ended cleanly when its client is reading. One that is not would never finish the end, and its
  // socket, no longer counted, would stay: it goes, at once or after a heartbeat's wait.
  const endForAge = (stream: Stream) => {
    drop(stream)
    const {response} = stream
    if (response.writableLength > 0) return void response.destroy()
    response.end()
    setTimeout(() => response.writableFinished || response.destroy(), limits.heartbeatMs).unref()
  }
  const refuse = (request: IncomingMessage, response: ServerResponse, status: 429 | 503, detail: string): void => {
    sendProblem(request, response, buildProblem(options.publicBaseUrl, status, detail, request.url ?? EVENTS_PATH), {
      'Retry-After': '30',
    })
  }

  return {
    handle(request, response) {
      if (closed) {
        refuse(request, response, 503, 'The server is shutting down; reconnect in a moment.')
        return
      }
      if (request.method === 'HEAD') {
        response.writeHead(200, ['Content-Type', MEDIA_TYPES.eventStream, 'Cache-Control', 'no-store']).end()
        return
      }
      const client = options.clientOf(request)
      const refusal =
        open.size >= limits.maxStreams
          ? ([503, `${limits.maxStreams} event streams are open on this server; retry later.`] as const)
          : (byClient.get(client) ?? 0) >= perClient
            ? ([429, `This address holds ${perClient} event streams already, its share.`] as const)
            : undefined
      if (refusal) {
        refuse(request, response, refusal[0], refusal[1])
        return
      }
      const stream: Stream = {response, client, endsAt: Date.now() + limits.maxAgeMs * (0.75 + Math.random() / 4)}
      open.add(stream)
      byClient.set(client, (byClient.get(client) ?? 0) + 1)
      response.once('close', () => drop(stream))
      response.writeHead(200, [
        'Content-Type',
        MEDIA_TYPES.eventStream,
        'Cache-Control',
        'no-store',
        'X-Accel-Buffering',
        'no',
        // Ended at shutdown, the response takes its connection with it.
        'Connection',
        'close',
      ])
      heartbeat ??= setInterval(() => {
        const now = Date.now()
        for (const each of open) {
          if (now < each.endsAt) write(each, ': heartbeat\n\n')
          else endForAge(each)
        }
      }, limits.heartbeatMs).unref()
      const snapshot = options.current()
      const since = lastEventId(request)
      let opening = streamOpening(snapshot.version)
      if (since !== undefined && since !== snapshot.version) {
        const missed = changedSince(snapshot.history, (collection, slug) => snapshot.item(collection, slug), since)
        opening += missed ? eventText(snapshot.version, missed) : resetEvent(snapshot.version)
      }
      write(stream, opening)
    },
    served(snapshot) {
      const previous = last
      last = snapshot
      if (!previous || previous.version === snapshot.version) return
      if (open.size === 0) return
      const changes = changedSince(
        snapshot.history,
        (collection, slug) => snapshot.item(collection, slug),
        previous.version,
      )
      const text = changes ? eventText(snapshot.version, changes) : resetEvent(snapshot.version)
      for (const stream of open) write(stream, text)
    },
    count: () => open.size,
    close() {
      closed = true
      clearInterval(heartbeat)
      for (const stream of [...open]) {
        stream.response.end()
        drop(stream)
      }
    },
  }
}

/** `Last-Event-ID`, else `?since=`: the version the client last saw. */
function lastEventId(request: IncomingMessage): string | undefined {
  const header = request.headers['last-event-id']
  if (typeof header === 'string' && header !== '') return header.trim()
  const query = (request.url ?? '').split('?')[1]
  return query === undefined ? undefined : (new URLSearchParams(query).get('since') ?? undefined)
}

/**
 * What a stream starts with: the reconnection delay, and the version served as an `id` with no
 * data, which sets an EventSource's last event id without an event. A client that drops before the
 * first change then resumes from this version (Last-Event-ID) and hears what it missed.
 */
export function streamOpening(version: string): string {
  return `retry: 3000\nid: ${version}\n\n`
}

/** A version older than the history: the client starts again from `changes.json` without `since`. */
function resetEvent(version: string): string {
  return `event: reset\nid: ${version}\ndata: ${JSON.stringify({version})}\n\n`
}

function eventText(
  version: string,
  changes: readonly {collection: keyof typeof TYPE_OF; slug: string; deleted: boolean}[],
): string {
  const data = {
    version,
    changes: changes.map(({collection, slug, deleted}) => ({type: TYPE_OF[collection], slug, deleted})),
  }
  return `id: ${version}\ndata: ${JSON.stringify(data)}\n\n`
}
