import {readFileSync} from 'node:fs'
import {monitorEventLoopDelay} from 'node:perf_hooks'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {parseNdjson, type SanityDocument} from '../server/content/ndjson.ts'
import {catalogSnapshotBuilder} from '../server/snapshot/catalog-builder.ts'
let documents: SanityDocument[] = parseNdjson(readFileSync('/tmp/scale/d100000.ndjson', 'utf8'), 'x')
const config = loadConfig({})
const build = catalogSnapshotBuilder({source: createEmbeddedSource('x', async () => documents), config, clock: () => new Date()})
let snap = await build(undefined, {kind: 'all'})
await new Promise((r) => setTimeout(r, 3000))
const episodes = documents.filter((d) => d._type === 'episode')
for (let i = 0; i < 3; i++) {
  const target = episodes[i * 5000]!
  documents = documents.map((d) => (d._id === target._id ? {...d, title: `x${i}`} : d))
  const t = performance.now()
  snap = await build(snap, {kind: 'documents', documents: new Map([[target._id, 'episodes']])})
  console.log('edit', (performance.now() - t).toFixed(0))
  const h = monitorEventLoopDelay({resolution: 5}); h.enable()
  const w = performance.now(); await snap.warm(); h.disable(); console.log('warm', (performance.now() - w).toFixed(0), 'max loop delay', (h.max / 1e6).toFixed(0))
  await new Promise((r) => setTimeout(r, 500))
}
