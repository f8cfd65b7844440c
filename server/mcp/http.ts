import {toNodeHandler} from '@modelcontextprotocol/node'
import {
  createMcpHandler,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server'
import express, {type RequestHandler} from 'express'
import {clientAddressResolver, rateLimitKey} from '../http/client-address.ts'
import {buildProblem, sendMethodNotAllowed, sendProblem} from '../http/problem.ts'
import type {SnapshotStore} from '../snapshot/store.ts'
import {isListenMessage, type ListenStreams} from './listen-streams.ts'
import {createCatalogMcpServer, type CatalogMcpOptions} from './mcp-server.ts'
import {MAX_MCP_BODY_BYTES, mcpRequestBody} from './request-body.ts'

export const MCP_PATH = '/mcp'

export interface McpRoutesOptions extends Omit<CatalogMcpOptions, 'snapshot' | 'era'> {
  store: Pick<SnapshotStore, 'current'>
  /** The `subscriptions/listen` streams: their limits, their events, their graceful close. */
  listen: ListenStreams
  /** TRUST_PROXY: which address a listen stream is counted against. */
  trustProxy: number | string[] | undefined
  /** Listening on loopback: only local Host and Origin headers (and the public host) are served. */
  loopbackOnly: boolean
  onError?: (error: Error) => void
  /** Where the SDK's warnings go (it writes them with console.warn); the console by default. */
  onWarning?: (message: string) => void
}

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, both protocol eras (2026-07-28 and the
 * `initialize` handshake), one fresh server per request; a `subscriptions/listen` request is a
 * stream held open for change notifications (listen-streams.ts). `GET /mcp` is 405.
 */
export function mcpRoutes(options: McpRoutesOptions): express.Router {
  const {store, publicBaseUrl, listen} = options
  const handlerOptions = {
    legacy: 'stateless',
    responseMode: 'json',
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
    // Under the generated VCL's 15 s between-bytes timeout, with room for a busy event loop.
    keepAliveMs: 10_000,
    bus: listen.bus,
    ...(options.onError ? {onerror: reportServerFaults(options.onError)} : {}),
  } as const
  const factory = ({era}: {era: 'legacy' | 'modern'}) =>
    createCatalogMcpServer({...options, era, snapshot: () => store.current()})
  const handler = warningsTo(options.onWarning, () => createMcpHandler(factory, handlerOptions))
  // Its own handler, so that shutting the streams down (the SDK's close ends them gracefully)
  // leaves the requests still being answered alone.
  const listenHandler = warningsTo(options.onWarning, () => createMcpHandler(factory, handlerOptions))
  const clientAddress = clientAddressResolver(options.trustProxy)
  const router = express.Router({caseSensitive: true, strict: true})
  const problem = (status: 400 | 421, detail: string, instance: string) =>
    buildProblem(publicBaseUrl, status, detail, instance)

  // DNS rebinding: a page on another site can make a browser talk to a server on loopback; refusing
  // foreign Host and Origin headers stops it. (A 4xx problem, never 401/403.)
  const publicHost = new URL(publicBaseUrl).hostname
  const hosts = [...localhostAllowedHostnames(), publicHost]
  const origins = [...localhostAllowedOrigins(), publicHost]
  const localOnly: RequestHandler = (request, response, next) => {
    if (!options.loopbackOnly) {
      next()
      return
    }
    const host = validateHostHeader(request.headers.host, hosts)
    if (!host.ok) {
      sendProblem(
        request,
        response,
        problem(
          421,
          `This MCP server only answers requests addressed to ${hosts.join(', ')} (${host.message}).`,
          request.originalUrl,
        ),
      )
      return
    }
    const origin = validateOriginHeader(request.headers.origin, origins)
    if (!origin.ok) {
      sendProblem(
        request,
        response,
        problem(
          400,
          `Requests from the origin ${request.headers.origin} are not served (${origin.message}).`,
          request.originalUrl,
        ),
      )
      return
    }
    next()
  }

  router.get(`${MCP_PATH}/health`, (_request, response) => {
    response.set('Cache-Control', 'no-store').json({status: 'ok', snapshot: store.current().version})
  })
  const serve = toNodeHandler(
    {fetch: async (request, requestOptions) => withoutKeepAliveHeader(await handler.fetch(request, requestOptions))},
    {maxRequestBodySize: MAX_MCP_BODY_BYTES},
  )
  const handOver: RequestHandler = (request, response) => {
    const message: unknown = request.body
    if (isListenMessage(message))
      void listen.serve(request, response, message, rateLimitKey(clientAddress(request)), listenHandler)
    else void serve(request, response, message)
  }
  router.post(MCP_PATH, localOnly, ...mcpRequestBody(), handOver)
  router.all(MCP_PATH, (request, response) =>
    sendMethodNotAllowed(request, response, {
      publicBaseUrl,
      allow: 'POST',
      instance: request.originalUrl,
      detail:
        'The MCP endpoint takes POST (Streamable HTTP, stateless); change notifications come on a POSTed subscriptions/listen stream, none on GET.',
    }),
  )
  return router
}

/**
 * The SDK labels its event streams `Connection: keep-alive`, and Node obeys a header the
 * application sets over the client's own `Connection: close`, so a client that asked for the
 * connection to close (RFC 9112 §9.6) was kept waiting for the idle timeout. The connection is
 * the HTTP server's to manage.
 */
function withoutKeepAliveHeader(response: Response): Response {
  if (response.headers.get('connection')?.toLowerCase() !== 'keep-alive') return response
  const headers = new Headers(response.headers)
  headers.delete('connection')
  return new Response(response.body, {status: response.status, statusText: response.statusText, headers})
}

/**
 * The SDK announces with console.warn, on every start, that JSON responses drop mid-call
 * notifications. This server's tools send none (each answers with one result), so nothing is
 * dropped and the warning is answered here rather than logged; docs/agents.md says so once.
 */
const ANSWERED_WARNING = /^responseMode: 'json' drops mid-call notifications/

/** Runs `create` with console.warn sent to `onWarning` (the console by default), less the answered warning. */
function warningsTo<T>(onWarning: ((message: string) => void) | undefined, create: () => T): T {
  const consoleWarn = console.warn
  const report = onWarning ?? ((message: string) => consoleWarn(message))
  console.warn = (...parts: unknown[]) => {
    const message = parts.map(String).join(' ')
    if (!ANSWERED_WARNING.test(message)) report(message)
  }
  try {
    return create()
  } finally {
    console.warn = consoleWarn
  }
}

// The SDK reports a client's malformed request (answered 4xx in JSON-RPC) through the same hook as
// a fault of ours; only the latter belongs in the error log.
const CLIENT_MISTAKE = /^(Unsupported Media Type|Not Acceptable|Rejected |Parse error|Invalid Request|Bad Request)/

function reportServerFaults(onError: (error: Error) => void): (error: Error) => void {
  return (error) => {
    if (!CLIENT_MISTAKE.test(error.message)) onError(error)
  }
}
