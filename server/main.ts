import {createCatalogService, type CatalogService} from './catalog-service.ts'
import {loadConfig, type Config} from './config.ts'
import {FIXED_HEADS_WORK} from './http/response-headers.ts'
import {createStdoutLog} from './observability/logger.ts'
import {boundHeapHeadroom} from './snapshot/heap-growth.ts'
import {StartFailure, errorMessage} from './errors.ts'

// The only module that reads the environment, listens and handles signals; catalog-service.ts
// assembles everything else.

/** The least time the log is given to write out its last lines before the process exits. */
const EXIT_LOG_FLUSH_MS = 200

const config = configOrExit()
const log = createStdoutLog(config.logLevel)
const {logger} = log
// For the process's life: between builds the heap stays within a bounded headroom of what is live.
boundHeapHeadroom()
if (!FIXED_HEADS_WORK)
  logger.warn(
    `Node ${process.version} does not take pre-joined header lines as this server expects; every header goes through writeHead's checks (slower, same headers)`,
  )

const service = await createCatalogService(config, log).catch((error: unknown) =>
  exitWith(error instanceof StartFailure ? error.message : errorMessage(error)),
)
await listenOrExit(service)

process.on('SIGHUP', () => service.confirmMassDeletion())
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    const started = Date.now()
    const deadline = started + config.shutdownTimeoutSeconds * 1000
    void service
      .close(config.shutdownTimeoutSeconds * 1000)
      .then(() => {
        logger.info(`stopped after ${signal}: in-flight requests finished in ${Date.now() - started} ms`)
        // The log gets what is left of the shutdown timeout (a moment at least): a stalled stdout
        // loses its last lines rather than keeping the process alive.
        return log.close(Math.max(EXIT_LOG_FLUSH_MS, deadline - Date.now()))
      })
      .then(() => process.exit(0))
  })
}

async function listenOrExit(catalog: CatalogService): Promise<void> {
  const address = await catalog.listen().catch(async (error: unknown) => {
    logger.fatal(`cannot listen: ${listenFailure(error)}`)
    await log.close(EXIT_LOG_FLUSH_MS)
    return process.exit(1)
  })
  const {episodes, meetups, voices} = catalog.store.current().counts
  logger.info(`Serving ${episodes} episodes, ${meetups} meetups and ${voices} voices from ${catalog.sourceDescription}`)
  logger.info(
    `Catalog API: ${config.publicBaseUrl}/api/v1/index.json (listening on ${address.address}:${address.port})`,
  )
  if (!config.webhookSecret)
    logger.info('Webhooks are off: set SANITY_WEBHOOK_SECRET to receive Sanity deliveries at /webhooks/sanity')
}

function listenFailure(error: unknown): string {
  const where = `${config.host}:${config.port}`
  const code = error instanceof Error && 'code' in error ? String(error.code) : ''
  const reasons: Record<string, string> = {
    EADDRINUSE: `${where} is already in use: stop whatever listens there or set PORT to another port`,
    EACCES: `${where} needs privileges this process lacks: use a port above 1023`,
    EADDRNOTAVAIL: `${config.host} is not an address of this machine: set HOST to one (127.0.0.1, or 0.0.0.0 for all)`,
  }
  return reasons[code] ?? errorMessage(error)
}

/** The configuration, or a readable message on stderr and exit code 1: no stack trace for a typo. */
function configOrExit(): Config {
  try {
    return loadConfig(process.env)
  } catch (error) {
    return exitWith(errorMessage(error))
  }
}

function exitWith(line: string): never {
  process.stderr.write(`catalog-api: ${line}\n`)
  process.exit(1)
}
