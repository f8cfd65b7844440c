// The plainest Node baseline for bench:http: raw node:http writing the origin's own pre-built
// buffers (the same snapshot, built by the same code) with a fixed header list, brotli when the
// request accepts it, an exact If-None-Match answered with 304, and nothing else: no rate limit,
// metrics, logs, CORS or request ids. POST /mcp is the origin's own MCP server (the same SDK
// handler, same tools, same options) on bare node:http: the MCP case then measures what the origin
// adds around the SDK, as the other cases measure what it adds around the bytes. (The tool's work
// with no SDK at all, POST /mcp-bare, is several times faster still: that gap is the SDK's, a
// choice of the design rather than something a guard can hold at 2×.) PORT and DATASET_FILE as for
// the server. It takes the origin's `optimizeEmptyRequests` (bodiless requests skip their stream's
// life cycle), so the two stay like for like; RAW_NODE_DEFAULTS=1 runs it with Node's defaults.
import {createServer} from 'node:http'
import {toNodeHandler} from '@modelcontextprotocol/node'
import {createMcpHandler} from '@modelcontextprotocol/server'
import {createCatalogMcpServer, MCP_INSTRUCTIONS, MCP_SERVER_NAME} from '../server/mcp/mcp-server.ts'
import {SERVER_VERSION} from '../server/version.ts'
import {prebuiltCatalog, searchToolResponse, variantFor} from './prebuilt.ts'

const {config, snapshot, responses} = await prebuiltCatalog(process.env)
const mcpOptions = {
  snapshot: () => snapshot,
  publicBaseUrl: config.publicBaseUrl,
  name: MCP_SERVER_NAME,
  version: SERVER_VERSION,
  instructions: MCP_INSTRUCTIONS,
}
const mcp = toNodeHandler(
  createMcpHandler(({era}) => createCatalogMcpServer({...mcpOptions, era}), {
    legacy: 'stateless',
    responseMode: 'json',
  }),
)
const optimizeEmptyRequests = process.env.RAW_NODE_DEFAULTS !== '1'
createServer({optimizeEmptyRequests}, (request, response) => {
  if (request.method === 'POST' && request.url === '/mcp') return void mcp(request, response)
  if (request.method === 'POST' && request.url === '/mcp-bare') {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.from(searchToolResponse(snapshot, Buffer.concat(chunks).toString('utf8')))
      response.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(body.length)])
      response.end(body)
    })
    return
  }
  const found = responses.get(request.url ?? '')
  if (!found) {
    response.writeHead(404)
    response.end()
    return
  }
  const variant = variantFor(found, request.headers['accept-encoding'])
  if (request.headers['if-none-match'] === variant.etag) {
    response.writeHead(304, variant.notModified)
    response.end()
  } else {
    response.writeHead(200, variant.headers)
    response.end(variant.body)
  }
}).listen(config.port, '127.0.0.1', () =>
  console.log(`raw node:http ceiling on ${config.port}${optimizeEmptyRequests ? '' : ", Node's defaults"}`),
)
