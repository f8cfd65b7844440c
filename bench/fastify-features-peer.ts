// The Fastify peer with the origin's features, as a team would add them with Fastify's own plugins:
// CORS for every origin (@fastify/cors, with the same exposed headers), a rate limit counting every
// request and advertising it (@fastify/rate-limit, draft-spec headers, never refusing at this
// quota), a request id echoed in X-Request-Id, nosniff and the catalog version. bench/fastify-peer.ts
// is the same route with none of them. PORT and DATASET_FILE as for the server.
import cors from '@fastify/cors'
import rateLimit from '@fastify/rate-limit'
import Fastify from 'fastify'
import {randomBytes} from 'node:crypto'
import {EXPOSED_HEADERS} from '../server/http/request-listener.ts'
import {prebuiltCatalog, variantFor} from './prebuilt.ts'

const {config, snapshot, responses} = await prebuiltCatalog(process.env)
const prefix = randomBytes(6).toString('base64url')
let sequence = 0
// With the origin's server option (bodiless requests skip their stream's life cycle): like for like.
const app = Fastify({
  logger: false,
  http: {optimizeEmptyRequests: true},
  requestIdHeader: 'x-request-id',
  genReqId: () => `${prefix}-${(sequence += 1).toString(36)}`,
})
await app.register(cors, {origin: '*', exposedHeaders: EXPOSED_HEADERS})
await app.register(rateLimit, {max: 1_000_000_000, timeWindow: 60_000, enableDraftSpec: true})
app.addHook('onRequest', (request, reply, done) => {
  reply.headers({'X-Content-Type-Options': 'nosniff', 'X-Request-Id': request.id, 'Catalog-Version': snapshot.version})
  done()
})
app.get('/api/v1/*', (request, reply) => {
  const found = responses.get(request.url)
  if (!found) return reply.code(404).send()
  const variant = variantFor(found, request.headers['accept-encoding'])
  if (request.headers['if-none-match'] === variant.etag)
    return reply.code(304).headers(variant.notModifiedObject).send()
  return reply.headers(variant.headerObject).send(variant.body)
})
await app.listen({port: config.port, host: '127.0.0.1'})
console.log(`Fastify peer with the origin's features on ${config.port}`)
