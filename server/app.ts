import express, {type ErrorRequestHandler, type RequestHandler} from 'express'
import {createCatalogHandler, sendReadOnlyRefusal} from './api/v1/router.ts'
import {buildProblem, isProblemStatus, isReadMethod, sendMethodNotAllowed, sendProblem, unknownPathDetail, type ProblemStatus} from './http/problem.ts'
import {sendRepresentation} from './http/representation-response.ts'
import {statusHandler} from './http/status.ts'
import type {Config} from './config.ts'
import {MCP_INSTRUCTIONS, MCP_SERVER_NAME} from './mcp/catalog-tools.ts'
import {mcpRoutes} from './mcp/http.ts'
import type {DocumentChange, SnapshotStore} from './snapshot/store.ts'
import {SERVER_VERSION} from './version.ts'
import {createSanityWebhookHandlers, WEBHOOK_PATH} from './webhooks/sanity-webhook.ts'

export interface AppDependencies {
  store: SnapshotStore
  config: Pick<Config, 'publicBaseUrl' | 'webhookSecret' | 'apiName' | 'host' | 'trustProxy'>
  /** Names the content source in `/status`. */
  sourceDescription?: string
  clock?: () => Date
  /** Where unexpected errors are reported; the client only ever sees a problem document. */
  logError?: (error: unknown) => void
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

/** The HTTP application. No side effects: it neither reads the environment nor listens. */
export function createApp({store, config, sourceDescription = 'content source', clock = () => new Date(), logError = console.error}: AppDependencies): express.Express {
  const {publicBaseUrl} = config
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag') // representations carry their own strong ETags
  app.set('case sensitive routing', true)
  app.set('strict routing', true)
  app.set('query parser', false) // only the list handler reads the query, with URLSearchParams
  app.set('trust proxy', config.trustProxy ?? false) // request.ip in logs agrees with the rate limiter's client address

  const problem = (status: ProblemStatus, detail: string, instance: string) => buildProblem(publicBaseUrl, status, detail, instance)

  const rejectMalformedUrl: RequestHandler = (request, response, next) => {
    try {
      decodeURIComponent(request.originalUrl)
    } catch {
      return sendProblem(request, response, problem(400, 'The request URL has malformed percent-encoding.', request.path))
    }
    next()
  }

  /** Paths that exist answer other methods with 405; unknown paths are 404 whatever the method. */
  const readOnly: RequestHandler = (request, response, next) => {
    if (isReadMethod(request.method)) return next()
    sendReadOnlyRefusal(request, response, publicBaseUrl, request.originalUrl)
  }

  const catalog = createCatalogHandler(store, publicBaseUrl)
  const catalogRoute: RequestHandler = (request, response) => {
    const queryStart = request.url.indexOf('?')
    const query = queryStart === -1 ? '' : request.url.slice(queryStart + 1)
    catalog(request, response, {path: request.path, query, instance: request.originalUrl})
  }

  const notFound: RequestHandler = (request, response) =>
    sendProblem(request, response, problem(404, unknownPathDetail(publicBaseUrl), request.originalUrl))

  const errorResponse: ErrorRequestHandler = (error, request, response, next) => {
    if (response.headersSent) return next(error)
    // Body parsers and the like mark client errors with a 4xx `status`.
    const status: unknown = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined
    if (isProblemStatus(status) && status < 500) {
      return sendProblem(request, response, problem(status, error instanceof Error ? error.message : 'The request was refused.', request.originalUrl))
    }
    logError(error)
    sendProblem(request, response, problem(500, 'The server failed to answer. The payload is static, so a retry with backoff is safe.', request.originalUrl))
  }

  app.use(rejectMalformedUrl)
  if (config.webhookSecret) {
    const refresh = (change: DocumentChange | 'all') => store.refresh(change === 'all' ? undefined : [change]).catch(() => undefined) // the store records and retries failures
    app.post(WEBHOOK_PATH, ...createSanityWebhookHandlers({secret: config.webhookSecret, publicBaseUrl, clock, onChange: refresh}))
    app.all(WEBHOOK_PATH, (request, response) =>
      sendMethodNotAllowed(request, response, {publicBaseUrl, allow: 'POST', instance: request.originalUrl, detail: `${request.method} is not supported here; use POST.`}),
    )
  }
  app.use(
    mcpRoutes({
      store,
      publicBaseUrl,
      name: MCP_SERVER_NAME,
      version: SERVER_VERSION,
      instructions: MCP_INSTRUCTIONS,
      loopbackOnly: isLoopback(config.host),
      onError: logError,
    }),
  )
  app.all('/status', readOnly, statusHandler(store, sourceDescription, clock))
  app.use('/api/v1', catalogRoute)
  // OpenAPI, the portal, discovery documents and sitemaps: pre-built with the snapshot. After the
  // catalog route, so API requests (which never match one) skip this lookup.
  app.use((request, response, next) => {
    const document = store.current().site(request.path)
    if (!document) return next()
    readOnly(request, response, () => sendRepresentation(request, response, document))
  })
  app.use(notFound)
  app.use(errorResponse)
  return app
}
