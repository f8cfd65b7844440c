import {readFileSync} from 'node:fs'
import {readFile, open} from 'node:fs/promises'
const f = '/tmp/scale/d100000.ndjson'
for (let i = 0; i < 3; i++) {
  let t = performance.now(); await readFile(f); const a = performance.now() - t
  t = performance.now(); readFileSync(f); const b = performance.now() - t
  t = performance.now(); const h = await open(f); const {size} = await h.stat(); const buf = Buffer.allocUnsafe(size); let off = 0; while (off < size) { const {bytesRead} = await h.read(buf, off, size - off, off); if (!bytesRead) break; off += bytesRead }; await h.close(); const c = performance.now() - t
  console.log('readFile', a.toFixed(0), 'sync', b.toFixed(0), 'one read', c.toFixed(0))
}
