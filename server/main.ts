import {createCatalogServer} from './catalog-server.ts'
import {loadConfig} from './config.ts'
import {createSource} from './content/create-source.ts'
import {watchFile} from './content/watch-file.ts'
import {catalogSnapshotBuilder} from './snapshot/catalog-builder.ts'
import {createSnapshotStore, type BuildOutcome} from './snapshot/store.ts'
import type {Snapshot} from './snapshot/snapshot.ts'

// The only module that reads the environment, starts timers, watches files or listens.
const config = loadConfig(process.env)
const source = createSource(config.content)
const clock = () => new Date()

const reported = new Set<string>()
function reportProblems(snapshot: Snapshot) {
  for (const problem of snapshot.catalog.problems) {
    const key = `${problem.documentId} ${problem.severity} ${problem.messages.join('; ')}`
    if (reported.has(key)) continue
    reported.add(key)
    console.warn(`${problem.severity}: ${problem.collection} document ${problem.documentId}: ${problem.messages.join('; ')}`)
  }
}
function reportBuild(outcome: BuildOutcome) {
  const scope = outcome.kind === 'full' ? 'full rebuild' : `rebuild of ${outcome.documents?.join(', ')}`
  if (outcome.ok) console.log(`${scope} done in ${outcome.durationMs} ms`)
  else console.error(`${scope} failed after ${outcome.durationMs} ms (${outcome.error}); still serving the last good snapshot, retrying`)
}

const store = await createSnapshotStore(catalogSnapshotBuilder({source, config, clock}), {
  clock,
  onBuild: (outcome) => {
    reportBuild(outcome)
    if (outcome.ok) reportProblems(store.current())
  },
})
reportProblems(store.current())

const refreshAll = (reason: string) => () => {
  console.log(`re-reading the catalog: ${reason}`)
  store.refresh().catch(() => undefined) // recorded, logged and retried by the store
}
const stopWatching = config.content.kind === 'embedded' ? watchFile(config.content.datasetFile, refreshAll(`${config.content.datasetFile} changed`)) : () => undefined
const reconcileTimer =
  config.reconcileIntervalSeconds > 0 ? setInterval(refreshAll('reconcile timer'), config.reconcileIntervalSeconds * 1000).unref() : undefined

const {server, shutDown} = createCatalogServer({store, config, sourceDescription: source.description, clock})
server.listen({port: config.port, host: config.host, reusePort: config.reusePort}, () => {
  const {episodes, meetups, voices} = store.current().counts
  const address = server.address()
  const listening = address && typeof address === 'object' ? `${address.address}:${address.port}` : String(address)
  console.log(`Serving ${episodes} episodes, ${meetups} meetups and ${voices} voices from ${source.description}`)
  console.log(`Catalog API: ${config.publicBaseUrl}/api/v1/index.json (listening on ${listening})`)
  if (!config.webhookSecret) console.log('Webhooks are off: set SANITY_WEBHOOK_SECRET to receive Sanity deliveries at /webhooks/sanity')
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stopWatching()
    clearInterval(reconcileTimer)
    store.close()
    const started = Date.now()
    shutDown(config.shutdownTimeoutSeconds * 1000).then(() => {
      console.log(`stopped after ${signal}: in-flight requests finished in ${Date.now() - started} ms`)
      process.exit(0)
    })
  })
}
