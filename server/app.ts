import express, {type ErrorRequestHandler, type RequestHandler} from 'express'
import {createCatalogHandler, sendReadOnlyRefusal} from './http/api-router.ts'
import {
  buildProblem,
  isProblemStatus,
  isReadMethod,
  sendMethodNotAllowed,
  sendProblem,
  unknownPathDetail,
  type ProblemStatus,
} from './http/problem.ts'
import {catalogVersionHeader} from './http/fast-path.ts'
import {splitTarget} from './http/request-target.ts'
import {sendRepresentation} from './http/representation-response.ts'
import {ResponseHeaders} from './http/response-headers.ts'
import {statusHandler} from './http/status.ts'
import {LIVENESS_PATH, livenessHandler, READINESS_PATH, readinessHandler, type Readiness} from './http/health.ts'
import type {Config} from './config.ts'
import {API_V1_PREFIX} from '../catalog/v1/links.ts'
import {FEED_PATH, feedUnavailableDetail} from './feed/rss-feed.ts'
import type {EdgeStatus} from './edge/edge-purging.ts'
import {EVENTS_PATH, type EventStreams} from './http/event-streams.ts'
import type {PodpingStatus} from './feed/podping.ts'
import {METRICS_PATH, type CatalogMetrics} from './observability/metrics.ts'
import {MCP_INSTRUCTIONS, MCP_SERVER_NAME} from './mcp/mcp-server.ts'
import {mcpRoutes} from './mcp/http.ts'
import type {ListenStreams} from './mcp/listen-streams.ts'
import type {ContentChange} from './content/content-change.ts'
import type {SnapshotStore} from './snapshot/store.ts'
import {SERVER_VERSION} from './version.ts'
import {createSanityWebhookHandlers, WEBHOOK_PATH} from './webhooks/sanity-webhook.ts'
import type {Clock} from './clock.ts'
import {errorMessage} from './errors.ts'

export interface AppDependencies {
  store: SnapshotStore
  config: Pick<Config, 'publicBaseUrl' | 'webhookSecret' | 'apiName' | 'host' | 'trustProxy'>
  /** Names the content source in `/status`. */
  sourceDescription?: string
  clock?: Clock
  /** Serves `GET /metrics` when given. */
  metrics?: Pick<CatalogMetrics, 'send'> | undefined
  /**
   * A verified webhook delivery, before it is answered: the publish path's `accepted` (publish-path.ts).
   * `false`: it could not be recorded durably, and the delivery gets a 503.
   */
  onContentChange: (change: ContentChange) => unknown
  /** Where unexpected errors are reported; the client only ever sees a problem document. */
  logError?: (error: unknown) => void
  /** The CDN purge queue shown in `/status`, when a CDN is purged. */
  edgeStatus?: () => EdgeStatus
  /** Items the current snapshot's feed or sitemaps left out, shown in `/status`. */
  leftOut?: () => readonly {output: string; documentId: string; reason: string}[]
  /** With a shared rate-limit store: since when it is bypassed for a count in this process, shown in `/status`. */
  rateLimitLocalSince?: (() => Date | undefined) | undefined
  /** `GET /api/v1/events` (http/event-streams.ts), when served. */
  eventStreams?: Pick<EventStreams, 'handle'> | undefined
  /** With SNAPSHOT_DIR: why the last save of the snapshot was refused, or null; shown in `/status`. */
  snapshotWriteError?: () => string | null
  /** The request bodies being received, shown in `/status`. */
  requestBodiesInFlight?: () => number
  /** With PODPING_URL: the announcements to Podping, shown in `/status`. */
  podpingStatus?: (() => PodpingStatus) | undefined
  /** Where library warnings are reported (the MCP SDK's); the console by default. */
  logWarning?: (message: string) => void
  /** What `/readyz` answers; by default ready, since the store serves a snapshot from its creation. */
  ready?: () => Readiness
  /** MCP `subscriptions/listen` streams (mcp/listen-streams.ts), which the service ends at shutdown. */
  listenStreams: ListenStreams
}

// A store is created with its first snapshot (createSnapshotStore awaits it), so by default a
// server that answers serves one.
const servesItsSnapshot = (): Readiness => ({ready: true})

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

/** The HTTP application. No side effects: it neither reads the environment nor listens. */
export function createApp(dependencies: AppDependencies): express.Express {
  const {
    store,
    config,
    sourceDescription = 'content source',
    clock = () => new Date(),
    logError = console.error,
  } = dependencies
  const {onContentChange} = dependencies
  const {publicBaseUrl} = config
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag') // representations carry their own strong ETags
  app.set('case sensitive routing', true)
  app.set('strict routing', true)
  app.set('query parser', false) // only the list handler reads the query, with URLSearchParams
  app.set('trust proxy', config.trustProxy ?? false) // request.ip in logs agrees with the rate limiter's client address

  const problem = (status: ProblemStatus, detail: string, instance: string) =>
    buildProblem(publicBaseUrl, status, detail, instance)

  const rejectMalformedUrl: RequestHandler = (request, response, next) => {
    try {
      decodeURIComponent(request.originalUrl)
    } catch {
      sendProblem(request, response, problem(400, 'The request URL has malformed percent-encoding.', request.path))
      return
    }
    next()
  }

  /** Paths that exist answer other methods with 405; unknown paths are 404 whatever the method. */
  const readOnly: RequestHandler = (request, response, next) => {
    if (isReadMethod(request.method)) {
      next()
      return
    }
    sendReadOnlyRefusal(request, response, publicBaseUrl, request.originalUrl)
  }

  const catalog = createCatalogHandler(store, publicBaseUrl)
  const catalogRoute: RequestHandler = (request, response) => {
    catalog(request, response, {
      path: request.path,
      query: splitTarget(request.url).query ?? '',
      instance: request.originalUrl,
    })
  }

  const notFound: RequestHandler = (request, response) =>
    sendProblem(request, response, problem(404, unknownPathDetail(publicBaseUrl), request.originalUrl))

  const errorResponse: ErrorRequestHandler = (error: unknown, request, response, next) => {
    if (response.headersSent) {
      next(error)
      return
    }
    // Body parsers and the like mark client errors with a 4xx `status`.
    const status: unknown = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined
    if (isProblemStatus(status) && status < 500) {
      sendProblem(
        request,
        response,
        problem(status, errorMessage(error, 'The request was refused.'), request.originalUrl),
      )
      return
    }
    logError(error)
    sendProblem(
      request,
      response,
      problem(
        500,
        'The server failed to answer. The payload is static, so a retry with backoff is safe.',
        request.originalUrl,
      ),
    )
  }

  app.use(rejectMalformedUrl)
  if (config.webhookSecret) {
    app.post(
      WEBHOOK_PATH,
      ...createSanityWebhookHandlers({secret: config.webhookSecret, publicBaseUrl, clock, onChange: onContentChange}),
    )
    app.all(WEBHOOK_PATH, (request, response) =>
      sendMethodNotAllowed(request, response, {
        publicBaseUrl,
        allow: 'POST',
        instance: request.originalUrl,
        detail: `${request.method} is not supported here; use POST.`,
      }),
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
      listen: dependencies.listenStreams,
      trustProxy: config.trustProxy,
      onError: logError,
      onWarning: dependencies.logWarning,
    }),
  )
  // The origin's root leads people to the developer portal (an empty redirect: no HTML).
  app.all('/', readOnly, (_request, response) => {
    response.writeHead(302, {Location: '/docs', 'Content-Length': '0', 'Cache-Control': 'public, max-age=3600'})
    response.end()
  })
  app.all(
    '/status',
    readOnly,
    statusHandler({
      store,
      sourceDescription,
      clock,
      edge: dependencies.edgeStatus,
      requestBodiesInFlight: dependencies.requestBodiesInFlight,
      leftOut: dependencies.leftOut,
      rateLimitLocalSince: dependencies.rateLimitLocalSince,
      snapshotWriteError: dependencies.snapshotWriteError,
      podping: dependencies.podpingStatus,
      searchIndex: () => store.current().searchIndex.health(),
    }),
  )
  app.all(LIVENESS_PATH, readOnly, livenessHandler)
  app.all(READINESS_PATH, readOnly, readinessHandler(dependencies.ready ?? servesItsSnapshot, publicBaseUrl))
  const {metrics} = dependencies
  if (metrics)
    app.all(METRICS_PATH, readOnly, (request, response, next) => void metrics.send(request, response).catch(next))
  const {eventStreams} = dependencies
  // The sandbox's copy too, as every API path has one (the generated VCL pipes both).
  if (eventStreams)
    app.all(
      [EVENTS_PATH, EVENTS_PATH.replace(API_V1_PREFIX, `${API_V1_PREFIX}/sandbox`)],
      readOnly,
      (request, response) => eventStreams.handle(request, response),
    )
  app.use(API_V1_PREFIX, catalogRoute)
  // OpenAPI, the portal, discovery documents and sitemaps: pre-built with the snapshot. After the
  // catalog route, so API requests (which never match one) skip this lookup.
  app.use((request, response, next) => {
    const snapshot = store.current()
    const document = snapshot.site(request.path)
    if (!document) {
      // Refused settings with no good version: a 404 would tell directories the podcast is gone.
      const unavailable = request.path === FEED_PATH ? feedUnavailableDetail(snapshot.catalog) : undefined
      if (unavailable)
        readOnly(request, response, () =>
          sendProblem(request, response, problem(503, unavailable, request.originalUrl), {'Retry-After': '60'}),
        )
      else next()
      return
    }
    readOnly(request, response, () =>
      sendRepresentation(request, response, document, {
        headers: new ResponseHeaders(catalogVersionHeader(snapshot)),
        servedFrom: {store, snapshot},
      }),
    )
  })
  app.use(notFound)
  app.use(errorResponse)
  return app
}
