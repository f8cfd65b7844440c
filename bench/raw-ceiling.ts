// The plainest Node baseline for bench:http: raw node:http writing the origin's own pre-built
// buffers (the same snapshot, built by the same code) with a fixed header list, answering an exact
// If-None-Match with 304, and nothing else: no rate limit, metrics, logs, CORS or negotiation.
// PORT and DATASET_FILE as for the server.
import {createServer} from 'node:http'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedFileSource} from '../server/content/embedded-source.ts'
import {CACHE_CONTROL} from '../server/http/representation-response.ts'
import {catalogSnapshotBuilder} from '../server/snapshot/catalog-builder.ts'

const config = loadConfig(process.env)
const snapshot = await catalogSnapshotBuilder({source: createEmbeddedFileSource(config.content.kind === 'embedded' ? config.content.datasetFile : 'data/catalog.ndjson'), config, clock: () => new Date()})(undefined, {kind: 'all'})
const prefix = '/api/v1/'
interface Prebuilt {
  etag: string
  body: Buffer
  headers: string[]
  notModified: string[]
}
const responses = new Map<string, Prebuilt>()
for (const path of snapshot.paths) {
  const representation = snapshot.representation(path)
  // The bulk document is streamed from its parts; this baseline writes single buffers only.
  if (!representation || !Buffer.isBuffer(representation.body)) continue
  const headers = ['Content-Type', representation.contentType, 'ETag', representation.etag, 'Last-Modified', representation.lastModifiedHeader, 'Cache-Control', CACHE_CONTROL]
  responses.set(`${prefix}${path}`, {etag: representation.etag, body: representation.body, headers: [...headers, 'Content-Length', String(representation.body.length)], notModified: headers})
}
createServer((request, response) => {
  const found = responses.get(request.url ?? '')
  if (!found) {
    response.writeHead(404)
    response.end()
  } else if (request.headers['if-none-match'] === found.etag) {
    response.writeHead(304, found.notModified)
    response.end()
  } else {
    response.writeHead(200, found.headers)
    response.end(found.body)
  }
}).listen(config.port, '127.0.0.1', () => console.log(`raw node:http ceiling on ${config.port}`))
