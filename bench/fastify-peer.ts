// The peer bench:http measures the origin against: a Fastify 5 route, as many teams would write
// it, serving the same pre-built buffers with the same headers as raw node:http (bench/prebuilt.ts).
// No MCP route: Fastify has nothing pre-built to serve there, and an MCP server on Fastify would be
// the same SDK the origin runs. PORT and DATASET_FILE as for the server.
import Fastify from 'fastify'
import {prebuiltCatalog, variantFor} from './prebuilt.ts'

const {config, responses} = await prebuiltCatalog(process.env)
// With the origin's server option (bodiless requests skip their stream's life cycle): like for like.
const app = Fastify({logger: false, http: {optimizeEmptyRequests: true}})
app.get('/api/v1/*', (request, reply) => {
  const found = responses.get(request.url)
  if (!found) return reply.code(404).send()
  const variant = variantFor(found, request.headers['accept-encoding'])
  if (request.headers['if-none-match'] === variant.etag)
    return reply.code(304).headers(variant.notModifiedObject).send()
  return reply.headers(variant.headerObject).send(variant.body)
})
await app.listen({port: config.port, host: '127.0.0.1'})
console.log(`Fastify peer on ${config.port}`)
