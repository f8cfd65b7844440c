import type {Logger} from 'pino'
import {Gauge} from 'prom-client'
import {createApp, type AppDependencies} from './app.ts'
import type {Config} from './config.ts'
import {clientAddressResolver, rateLimitKey, trustedProxyTest} from './http/client-address.ts'
import {createFastPath} from './http/fast-path.ts'
import {HEALTH_PATHS} from './http/health.ts'
import {createFailoverCounter, type FailoverCounter} from './http/failover-counter.ts'
import {createRateLimiter, type CounterStore} from './http/rate-limit.ts'
import {WindowCounter} from './http/window-counter.ts'
import {METRICS_PATH, type CatalogMetrics} from './observability/metrics.ts'
import {requestLogObserver} from './observability/request-log.ts'
import {createRequestListener, type RequestObserver} from './http/request-listener.ts'
import {WEBHOOK_PATH} from './webhooks/sanity-webhook.ts'
import {bodyGate, type BodyGate} from './http/connection-guard.ts'
import {createHttpServer, DEFAULT_LIMITS, type CatalogHttpServer, type ServerLimits} from './http/server.ts'
import {errorMessage} from './errors.ts'

export interface CatalogServerDependencies extends Omit<AppDependencies, 'logError' | 'logWarning'> {
  config: Pick<
    Config,
    'publicBaseUrl' | 'webhookSecret' | 'apiName' | 'host' | 'rateLimit' | 'trustProxy' | 'lifecycle'
  >
  /** Where request counts live: in this process by default, in Redis to share one quota across replicas. */
  rateLimitStore?: CounterStore
  limits?: ServerLimits
  /** Request logs with ids; none without it. */
  logger?: Logger | undefined
  metrics?: CatalogMetrics | undefined
  /** Counts the request bodies being received; made from `limits` when not given. Given, its count can also reach `/metrics`. */
  bodies?: BodyGate
}

/** The whole HTTP server: the fast path for pre-built representations, the Express application for the rest. */
export function createCatalogServer(dependencies: CatalogServerDependencies): CatalogHttpServer {
  const {config, clock} = dependencies
  // Unexpected errors and library warnings go to the log when there is one (the console otherwise).
  const log = dependencies.logger?.child({component: 'http'})
  const logError = log
    ? (error: unknown) => log.error({err: error}, errorMessage(error, 'unexpected error'))
    : console.error
  const logWarning = log && ((message: string) => log.warn(message))
  const clientAddress = clientAddressResolver(config.trustProxy)
  const shared = sharedCount(dependencies, logError)
  const rateLimiter =
    config.rateLimit.quota > 0
      ? createRateLimiter({
          ...config.rateLimit,
          store: shared ?? new WindowCounter(),
          keyOf: (request) => rateLimitKey(clientAddress(request)),
          publicBaseUrl: config.publicBaseUrl,
          onStoreError: logError,
        })
      : undefined
  // The level is set for the life of the process: above info, no request is timed for a log.
  const logsRequests = dependencies.logger?.isLevelEnabled('info') === true
  const logRequest =
    dependencies.logger && logsRequests ? requestLogObserver(dependencies.logger, clientAddress, clock) : undefined
  const countRequest = dependencies.metrics?.observe
  const limits = dependencies.limits ?? DEFAULT_LIMITS
  const bodies = dependencies.bodies ?? bodyGate(limits.maxBodiesInFlight)
  const observe: RequestObserver | undefined =
    logRequest && countRequest
      ? (request, response, answered) => {
          logRequest(request, response, answered)
          countRequest(request, response, answered)
        }
      : (logRequest ?? countRequest)
  const listener = createRequestListener({
    fastPath: createFastPath(dependencies.store, config.publicBaseUrl),
    application: createApp({
      ...dependencies,
      logError,
      logWarning,
      requestBodiesInFlight: bodies.inFlight,
      rateLimitLocalSince: shared && (() => shared.localSince()),
    }),
    rateLimiter,
    observe,
    timed: logsRequests,
    unlimitedPaths: [METRICS_PATH, WEBHOOK_PATH, ...HEALTH_PATHS],
    unobservedPaths: HEALTH_PATHS,
    lifecycle: config.lifecycle,
    publicBaseUrl: config.publicBaseUrl,
    clock,
    onError: logError,
  })
  return createHttpServer(listener, config.publicBaseUrl, limits, {
    isTrustedProxy: trustedProxyTest(config.trustProxy),
    bodies,
  })
}

/**
 * The shared rate-limit count (Redis), falling back to a count in this process while it does not
 * answer in time; told in the log, `/status` and `catalog_rate_limit_local`.
 */
function sharedCount(
  dependencies: CatalogServerDependencies,
  logError: (error: unknown) => void,
): FailoverCounter | undefined {
  const {rateLimitStore, logger, metrics, config} = dependencies
  if (!rateLimitStore || config.rateLimit.quota <= 0) return undefined
  const counter = createFailoverCounter({
    shared: rateLimitStore,
    onLocal: (error) =>
      logger
        ? logger.warn({err: error}, 'the shared rate-limit store failed; counting in this process until it answers')
        : logError(error),
    onShared: () => logger?.info('the shared rate-limit store answers again; counting there'),
  })
  if (metrics)
    new Gauge({
      name: 'catalog_rate_limit_local',
      help: '1 while requests are counted in this process because the shared rate-limit store (Redis) does not answer in time.',
      registers: [metrics.registry],
      collect() {
        this.set(counter.localSince() ? 1 : 0)
      },
    })
  return counter
}
