import {readFileSync} from 'node:fs'
import {compress} from '../server/snapshot/compression.ts'
import {ChunkedBody} from '../server/snapshot/representation.ts'
const lines = readFileSync('/tmp/scale/d100000.ndjson').toString('utf8').split('\n').map((l) => Buffer.from(l))
const chunked = new ChunkedBody(lines)
const whole = Buffer.concat(lines)
for (const coding of ['br', 'gzip'] as const) {
  let t = performance.now(); const a = await compress(coding, whole); const ta = performance.now() - t
  t = performance.now(); const b = await compress(coding, chunked); const tb = performance.now() - t
  console.log(coding, 'whole', ta.toFixed(0), a.length, 'chunked', tb.toFixed(0), b.length, (process.memoryUsage().rss / 2 ** 20).toFixed(0))
}
