import {createCatalogService, type CatalogServiceOverrides} from '../server/catalog-service.ts'
import {loadConfig, type Config} from '../server/config.ts'
import type {EdgePurging} from '../server/edge/edge-purging.ts'
import {createLogger} from '../server/observability/logger.ts'
import type {SnapshotStore} from '../server/snapshot/store.ts'

export const SAMPLE_DATASET = 'data/catalog.ndjson'

export interface TestServer {
  baseUrl: string
  store: SnapshotStore
  config: Config
  /** With CDN_PURGE set: the purge queue, to wait until it has nothing left. */
  edge: EdgePurging | undefined
  /** What the server logged at level error or above; a passing test expects none. */
  loggedErrors: unknown[]
  /** The JSON log lines written so far (request lines with `observed`). */
  logLines: string[]
  close(): Promise<void>
}

const ERROR_LEVEL = 50

/**
 * Starts what `npm start` starts (createCatalogService, as server/main.ts does) on an ephemeral
 * loopback port, with the overrides a test needs. `PUBLIC_BASE_URL` is fixed, so documents from
 * servers on different ports can be compared byte for byte.
 */
export async function startTestServer(
  options: CatalogServiceOverrides & {
    environment?: Record<string, string>
    /** Request logs (kept in `logLines`), as `npm start` has them; without it only warnings and errors are logged. */
    observed?: boolean
  } = {},
): Promise<TestServer> {
  const {environment, observed, ...overrides} = options
  // A quota no test reaches unless it sets its own.
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://api.test',
    RATE_LIMIT_QUOTA: '1000000',
    PORT: '0',
    LOG_LEVEL: observed ? 'info' : 'warn',
    ...environment,
  })
  const logLines: string[] = []
  const logger = createLogger(config.logLevel, {write: (line: string) => void logLines.push(line)})
  const service = await createCatalogService(
    config,
    {logger, droppedLines: () => 0, close: async () => undefined},
    overrides,
  )
  const address = await service.listen()
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    store: service.store,
    config,
    edge: service.edge,
    get loggedErrors() {
      return logLines
        .map((line): unknown => JSON.parse(line))
        .filter(
          (entry) =>
            typeof entry === 'object' && entry !== null && 'level' in entry && Number(entry.level) >= ERROR_LEVEL,
        )
    },
    logLines,
    close: () => service.close(0),
  }
}
