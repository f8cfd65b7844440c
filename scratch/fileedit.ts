import {readFileSync, writeFileSync, copyFileSync} from 'node:fs'
import {openDatasetFile} from '../server/content/ndjson-file.ts'
import {createEmbeddedFileSource} from '../server/content/embedded-source.ts'
import {EPISODE_BY_ID_QUERY, REFERENCING_QUERY} from '../server/content/queries.ts'
copyFileSync('/tmp/scale/d100000.ndjson', '/tmp/scale/edit.ndjson')
const source = createEmbeddedFileSource('/tmp/scale/edit.ndjson')
await source.fetch('count(*)')
const lines = readFileSync('/tmp/scale/edit.ndjson', 'utf8').split('\n')
const index = lines.findIndex((l, i) => i > 40000 && l.includes('"_type":"episode"'))
const id = JSON.parse(lines[index]!)._id
for (let round = 0; round < 4; round++) {
  lines[index] = lines[index]!.replace(/"title":"[^"]*"/, `"title":"round ${round}"`)
  writeFileSync('/tmp/scale/edit.ndjson', lines.join('\n'))
  let t = performance.now()
  const touched = await source.changedDocuments!()
  const a = performance.now() - t; t = performance.now()
  const row = await source.fetch(EPISODE_BY_ID_QUERY, {id})
  const b = performance.now() - t; t = performance.now()
  await source.fetch(EPISODE_BY_ID_QUERY, {id})
  const c = performance.now() - t; t = performance.now()
  await source.fetch(REFERENCING_QUERY, {id: 'x'})
  const d = performance.now() - t
  console.log(touched, 'diff', a.toFixed(0), 'first query', b.toFixed(0), 'second', c.toFixed(0), 'referencing', d.toFixed(0), (row as {title: string}).title)
}
