import {hostname} from 'node:os'
import {refreshFor} from './app.ts'
import {createCatalogServer} from './catalog-server.ts'
import {loadConfig, type Config} from './config.ts'
import {createSource} from './content/create-source.ts'
import {watchFile} from './content/watch-file.ts'
import {registerEdgeMetrics} from './edge/edge-metrics.ts'
import {createEdgePurging, type EdgeMetrics} from './edge/edge-purging.ts'
import {FIXED_HEADS_WORK} from './http/fixed-head.ts'
import {createStdoutLog} from './observability/logger.ts'
import {createMetrics} from './observability/metrics.ts'
import type {ContentChange} from './snapshot/store.ts'
import {connectRedis} from './scaling/redis.ts'
import type {ServedVersions} from './scaling/served-versions.ts'
import {catalogSnapshotBuilder, fingerprintOf} from './catalog-builder.ts'
import {boundHeapHeadroom, whileBuilding} from './snapshot/heap-growth.ts'
import {guardMassDeletion} from './snapshot/mass-deletion-guard.ts'
import {createDemandCaches} from './snapshot/demand-caches.ts'
import {openSnapshotFile} from './snapshot/saved-snapshot.ts'
import {FEED_PATH} from './feed/rss-feed.ts'
import {createFeedPinger} from './feed/websub.ts'
import {createSnapshotStore, documentChangeOf, isPodcastSettingsChange, type BuildOutcome} from './snapshot/store.ts'
import type {Snapshot} from './snapshot/snapshot.ts'
import {describeStartFailure} from './start-failure.ts'
import {SERVER_VERSION} from './version.ts'

/** The least time the log is given to write out its last lines before the process exits. */
const EXIT_LOG_FLUSH_MS = 200

// The only module that reads the environment, starts timers, watches files, connects or listens.
const config = configOrExit()
const log = createStdoutLog(config.logLevel)
const {logger, droppedLines} = log
const source = createSource(config.content)
const clock = () => new Date()
// For the process's life: at 100k documents, V8's own growth between builds took the heap from 370 to 750 MB.
boundHeapHeadroom()
if (!FIXED_HEADS_WORK) logger.warn(`Node ${process.version} does not take pre-joined header lines as this server expects; every header goes through writeHead's checks (slower, same headers)`)

const reported = new Set<string>()
function reportProblems(snapshot: Snapshot) {
  for (const problem of snapshot.catalog.problems) {
    const key = `${problem.documentId} ${problem.severity} ${problem.messages.join('; ')}`
    if (reported.has(key)) continue
    reported.add(key)
    logger.warn({documentId: problem.documentId, collection: problem.collection}, `${problem.severity}: ${problem.collection} document ${problem.documentId}: ${problem.messages.join('; ')}`)
  }
}
function reportBuild(outcome: BuildOutcome) {
  const scope = outcome.kind === 'full' ? 'full rebuild' : `rebuild of ${outcome.documents?.join(', ')}`
  const fields = {build: outcome.kind, durationMs: outcome.durationMs, documents: outcome.documents}
  if (outcome.ok) logger.info(fields, `${scope} done in ${outcome.durationMs} ms`)
  else logger.error(fields, `${scope} failed after ${outcome.durationMs} ms (${outcome.error}); still serving the last good snapshot, retrying`)
}

// The metrics read the store at scrape time, after it exists; builds reach them through onBuild.
const caches = createDemandCaches(config.caches)
const cacheBytes = () => ({pages: caches.pages.calculatedSize, variants: caches.variants.calculatedSize})
let edgeMetrics: EdgeMetrics | undefined
const metrics = createMetrics({
  store: () => snapshots,
  clock,
  droppedLogLines: droppedLines,
  cacheBytes,
  register: (registry) => void (edgeMetrics = config.edge && registerEdgeMetrics(registry, () => edge?.status())),
})
// What the served bytes depend on besides the content: a saved snapshot made under other settings is not reused.
const snapshotFile = config.snapshotDirectory
  ? openSnapshotFile(config.snapshotDirectory, {
      version: SERVER_VERSION,
      publicBaseUrl: config.publicBaseUrl,
      siteUrl: config.siteUrl,
      feedUrl: config.feedUrl,
      images: config.images,
      content: config.content,
    })
  : undefined
const saved = snapshotFile && {
  file: snapshotFile,
  onRestored: (savedAt: Date) => logger.info(`reusing the snapshot saved at ${savedAt.toISOString()}: the source's fingerprint has not changed`),
  onUnusable: (error: unknown) => logger.warn({err: error}, `the snapshot saved in ${config.snapshotDirectory} could not be read; reading the source in full`),
}
// Replicas sharing Redis say which version each serves (Redis connects once the store exists).
// eslint-disable-next-line prefer-const -- set once Redis is up, after the store whose callback reads it
let servedVersions: ServedVersions | undefined
const servedVersionsReady = Promise.withResolvers<ServedVersions | undefined>()
// Purges the CDN of exactly what each new snapshot changed, once it is served (by every replica).
const edge =
  config.edge &&
  createEdgePurging({
    config: config.edge,
    directory: config.snapshotDirectory,
    metrics: edgeMetrics,
    beforeSend: async (version) => {
      const replicas = await servedVersionsReady.promise
      if (replicas && version !== null) await replicas.allServe(version)
    },
    onFailure: (error, retryInMs) => logger.warn(retryInMs === undefined ? `CDN purge given up (dead-lettered): ${error.message}` : `CDN purge failed, retrying in ${retryInMs} ms: ${error.message}`),
  })
const firstBuildStartedAt = clock()
const guard = guardMassDeletion(catalogSnapshotBuilder({source, config, clock, caches, saved, keying: edge?.keying}), {clock, confirmAfterMs: config.massDeletionConfirmMs})
// The first read has no snapshot to fall back on: its failure is the operator's to fix, in one line.
const snapshots = await createSnapshotStore(guard.build, {
  clock,
  onBuild: (outcome) => {
    if (outcome.ok) servedVersions?.serving(snapshots.current().version)
    if (outcome.ok) edge?.snapshotServed(snapshots.current(), outcome.startedAt)
    reportBuild(outcome)
    metrics.recordBuild(outcome)
    if (outcome.ok) reportProblems(snapshots.current())
    if (outcome.ok) saveServedSnapshot()
    if (outcome.ok) announceFeed()
  },
}).catch((error: unknown) => exitWith(describeStartFailure(error, config.content)))
reportProblems(snapshots.current())
edge?.snapshotServed(snapshots.current(), firstBuildStartedAt)

// Hubs hear of every served snapshot whose feed changed. The feed's ETag comes from its items'
// memoised bytes, so asking for it after an edit writes one item, not the feed.
const feedPinger = createFeedPinger({
  feedUrl: config.feedUrl,
  hubUrl: config.websubHub,
  pubnotifyUrl: config.pubnotifyUrl,
  onPinged: (target) => logger.info(`told ${target} that the feed changed`),
  onGaveUp: (target, error) => logger.warn({err: error}, `could not tell ${target} that the feed changed`),
})
function announceFeed() {
  if (!config.websubHub && !config.pubnotifyUrl) return
  feedPinger.observe(snapshots.current().site(FEED_PATH)?.etag)
}
announceFeed()

// A snapshot built by a full read is saved once it is served (never one the mass-deletion guard
// holds), one save at a time; a per-document build is not, so a restart after edits reads in full.
let saving = Promise.resolve()
let lastSaved: string | undefined
function saveServedSnapshot() {
  const snapshot = snapshots.current()
  const fingerprint = fingerprintOf(snapshot)
  // A reconcile that read the same content under the same fingerprint has nothing new to save.
  if (!snapshotFile || fingerprint === undefined || lastSaved === `${fingerprint} ${snapshot.version}`) return
  lastSaved = `${fingerprint} ${snapshot.version}`
  const started = performance.now()
  saving = saving
    .then(() => whileBuilding(() => snapshotFile.save(snapshot, fingerprint)))
    .then(
      () => logger.info(`saved the snapshot to ${config.snapshotDirectory} in ${Math.round(performance.now() - started)} ms`),
      (error: unknown) => logger.error({err: error}, `could not save the snapshot to ${config.snapshotDirectory}; a restart will read the source in full`),
    )
}
saveServedSnapshot()

const refreshAll = (reason: string) => () => {
  logger.info(`re-reading the catalog: ${reason}`)
  snapshots.refresh().catch(() => undefined) // recorded, logged and retried by the store
}

const redis = config.redis
  ? await connectRedis({
      ...config.redis,
      replicaId: `${hostname()}:${process.pid}`,
      onRemoteChange: (change) => {
        logger.info({change}, 'another replica received a webhook; rebuilding')
        refreshFor(snapshots, change)
      },
      onResubscribed: refreshAll('Redis subscription restored (changes announced meanwhile were missed)'),
      log: {info: (message) => logger.info(message), error: (error, message) => logger.error({err: error}, message)},
      onPurgeWaitGaveUp: (version, lagging) => logger.warn(`CDN purge for version ${version} sent after waiting 30 s for ${lagging.join(', ')} to serve it`),
    })
  : undefined
if (redis) logger.info(`Redis connected: one rate limit across replicas, webhooks fanned out to all`)
servedVersions = redis?.servedVersions
servedVersions?.serving(snapshots.current().version)
servedVersionsReady.resolve(servedVersions)

const onContentChange = (change: ContentChange) => {
  edge?.changeAccepted() // on disk before the webhook is acknowledged
  refreshFor(snapshots, change)
  redis?.fanOut.announce(change)
}

// A file edit rebuilds the documents it touched; a file that cannot be read is left to the store,
// which keeps serving the last good snapshot and retries.
const applyFileChanges = (file: string) => () => {
  source.changedDocuments?.().then(
    (touched) => {
      if (touched.some((document) => isPodcastSettingsChange(document.id, document.type))) return void snapshots.refresh().catch(() => undefined)
      const changes = touched.flatMap((document) => documentChangeOf(document.id, document.type) ?? [])
      if (changes.length > 0) snapshots.refresh(changes).catch(() => undefined)
    },
    refreshAll(`${file} changed and could not be read`),
  )
}
const stopWatching = config.content.kind === 'embedded' ? watchFile(config.content.datasetFile, applyFileChanges(config.content.datasetFile)) : () => undefined
const reconcileTimer = config.reconcileIntervalSeconds > 0 ? setInterval(refreshAll('reconcile timer'), config.reconcileIntervalSeconds * 1000).unref() : undefined

const {server, shutDown} = createCatalogServer({
  store: snapshots,
  config,
  sourceDescription: source.description,
  clock,
  logger,
  metrics,
  logError: (error) => logger.error({err: error}, error instanceof Error ? error.message : 'unexpected error'),
  logWarning: (message) => logger.warn(message),
  rateLimitStore: redis?.counterStore,
  onContentChange,
  edgeStatus: edge ? () => edge.status() : undefined,
})
server.once('error', (error: NodeJS.ErrnoException) => {
  const where = `${config.host}:${config.port}`
  const reasons: Record<string, string> = {
    EADDRINUSE: `${where} is already in use: stop whatever listens there or set PORT to another port`,
    EACCES: `${where} needs privileges this process lacks: use a port above 1023`,
    EADDRNOTAVAIL: `${config.host} is not an address of this machine: set HOST to one (127.0.0.1, or 0.0.0.0 for all)`,
  }
  logger.fatal({code: error.code}, `cannot listen: ${reasons[error.code ?? ''] ?? error.message}`)
  void log.close(EXIT_LOG_FLUSH_MS).then(() => process.exit(1))
})
server.listen({port: config.port, host: config.host, reusePort: config.reusePort}, () => {
  const {episodes, meetups, voices} = snapshots.current().counts
  const address = server.address()
  const listening = address && typeof address === 'object' ? `${address.address}:${address.port}` : String(address)
  logger.info(`Serving ${episodes} episodes, ${meetups} meetups and ${voices} voices from ${source.description}`)
  logger.info(`Catalog API: ${config.publicBaseUrl}/api/v1/index.json (listening on ${listening})`)
  if (!config.webhookSecret) logger.info('Webhooks are off: set SANITY_WEBHOOK_SECRET to receive Sanity deliveries at /webhooks/sanity')
  // Once serving, so that a restored snapshot answers at once and the first edit is still fast;
  // then the site documents (sitemaps of every item), one piece of start-up work at a time.
  const prepared = whileBuilding(async () => source.prepare?.()).catch((error: unknown) => logger.warn({err: error}, `could not prepare ${source.description}; the first edit will read it`))
  Promise.resolve(prepared)
    .then(() => snapshots.current().warm())
    .catch(() => undefined) // a request builds what it asks for
})

// An operator's confirmation that a re-read dropping most of the catalog is meant.
process.on('SIGHUP', () => {
  logger.warn('SIGHUP: re-reading the catalog and serving it whatever it drops')
  guard.confirm()
  snapshots.refresh().catch(() => undefined)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopWatching()
    clearInterval(reconcileTimer)
    snapshots.close()
    edge?.close()
    const started = Date.now()
    const deadline = started + config.shutdownTimeoutSeconds * 1000
    void shutDown(config.shutdownTimeoutSeconds * 1000)
      .then(() => redis?.close())
      .then(() => {
        logger.info(`stopped after ${signal}: in-flight requests finished in ${Date.now() - started} ms`)
        // The log gets what is left of the shutdown timeout (a moment at least): a stalled stdout
        // loses its last lines rather than keeping the process alive.
        return log.close(Math.max(EXIT_LOG_FLUSH_MS, deadline - Date.now()))
      })
      .then(() => process.exit(0))
  })
}

/** The configuration, or a readable message on stderr and exit code 1: no stack trace for a typo. */
function configOrExit(): Config {
  try {
    return loadConfig(process.env)
  } catch (error) {
    return exitWith(error instanceof Error ? error.message : String(error))
  }
}

function exitWith(line: string): never {
  process.stderr.write(`catalog-api: ${line}\n`)
  process.exit(1)
}
