import {createApp} from './app.ts'
import {loadConfig} from './config.ts'
import {createSource} from './content/create-source.ts'
import {catalogSnapshotBuilder} from './snapshot/catalog-builder.ts'
import {createSnapshotStore} from './snapshot/store.ts'

// The only module that reads the environment, starts timers or listens.
const config = loadConfig(process.env)
const source = createSource(config.content)
const store = await createSnapshotStore(catalogSnapshotBuilder({source, config, clock: () => new Date()}))
const snapshot = store.current()
for (const problem of snapshot.catalog.problems) {
  console.warn(`${problem.severity}: ${problem.collection} document ${problem.documentId}: ${problem.messages.join('; ')}`)
}

const server = createApp({store, config}).listen(config.port, config.host, () => {
  const {episodes, meetups, voices} = snapshot.counts
  console.log(`Serving ${episodes} episodes, ${meetups} meetups and ${voices} voices from ${source.description}`)
  console.log(`Catalog API: ${config.publicBaseUrl}/api/v1/index.json (listening on ${config.host}:${config.port})`)
})

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)))
}
