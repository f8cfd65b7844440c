import escape from 'escape-html'
import {createHash} from 'node:crypto'
import {z} from 'zod'
import {DEFAULT_PAGE_LIMIT} from '../../catalog/v1/contract.ts'
import {PROBLEM_STATUSES, problemAnchor, problemTitle} from '../http/problem.ts'
import {MAX_URL_LENGTH} from '../http/request-listener.ts'
import {DEFAULT_LIMITS} from '../http/server.ts'
import type {ToolDefinition} from '../mcp/tool-definition.ts'
import type {Snapshot} from '../snapshot/snapshot.ts'
import {
  CHANGES_OPERATION_PATH,
  code,
  EVENTS_OPERATION_PATH,
  eventsExample,
  examplePath,
  SEARCH_OPERATION_PATH,
  tryIt,
} from './portal-examples.ts'

// The developer portal: one self-contained HTML page (inline CSS and one inline script allowed by
// its hash, no external font or request of any kind; the only requests it makes are try-it calls
// to this origin), its API reference rendered from the same OpenAPI document that is served, with
// examples taken from the snapshot it is built with.

/** Backticks in OpenAPI descriptions become <code>. */
const prose = (text: string | undefined) => escape(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>')

// Just the parts of the OpenAPI document the page renders.
interface RenderedSchema {
  $ref?: string | undefined
  type?: string | string[] | undefined
  format?: string | undefined
  description?: string | undefined
  const?: unknown
  items?: RenderedSchema | undefined
  anyOf?: RenderedSchema[] | undefined
  properties?: Record<string, RenderedSchema> | undefined
  required?: string[] | undefined
}
const renderedSchema: z.ZodType<RenderedSchema> = z.looseObject({
  $ref: z.string().optional(),
  type: z.union([z.string(), z.array(z.string())]).optional(),
  format: z.string().optional(),
  description: z.string().optional(),
  const: z.unknown().optional(),
  get items() {
    return renderedSchema.optional()
  },
  get anyOf() {
    return z.array(renderedSchema).optional()
  },
  get properties() {
    return z.record(z.string(), renderedSchema).optional()
  },
  required: z.array(z.string()).optional(),
})
const renderedOperation = z.looseObject({
  operationId: z.string(),
  summary: z.string().optional(),
  description: z.string().optional(),
  parameters: z
    .array(
      z.looseObject({
        name: z.string(),
        in: z.string(),
        description: z.string().optional(),
        schema: renderedSchema.optional(),
      }),
    )
    .default([]),
  responses: z.record(
    z.string(),
    z.looseObject({
      description: z.string(),
      content: z.record(z.string(), z.looseObject({schema: renderedSchema})).optional(),
    }),
  ),
})
const renderedDocument = z.looseObject({
  paths: z.record(z.string(), z.looseObject({get: renderedOperation})),
  components: z.looseObject({schemas: z.record(z.string(), renderedSchema)}),
})
type Operation = z.infer<typeof renderedOperation>

const seconds = (milliseconds: number) => `${milliseconds / 1000} seconds`

// Limits are quoted from what `npm start` uses, so the page cannot drift from the server.
const ERROR_ADVICE: Record<(typeof PROBLEM_STATUSES)[number], string> = {
  400: 'The request is malformed: a bad <code>limit</code> or <code>cursor</code>, a missing or too long search <code>q</code>, malformed percent-encoding, or a refused webhook delivery. The <code>detail</code> says what to fix.',
  404: 'No such episode, meetup or speaker slug, or no such path. Re-read the matching list endpoint; slugs change only when content is renamed.',
  405: 'The API is read-only: use GET or HEAD (the <code>Allow</code> header lists what the path takes; <code>/mcp</code> takes POST).',
  408: `The request was not sent in time (headers within ${seconds(DEFAULT_LIMITS.headersTimeoutMs)}, the whole request within ${seconds(DEFAULT_LIMITS.requestTimeoutMs)}); send it again.`,
  409: 'A webhook delivery that was already received (same <code>idempotency-key</code>); it changes nothing.',
  410: 'The API version has passed its <code>Sunset</code> date; follow the <code>successor-version</code> link.',
  413: 'The request body is too large.',
  414: `The request URL is longer than the server reads (${MAX_URL_LENGTH.toLocaleString('en')} bytes); no endpoint needs one that long.`,
  415: 'The request body has a media type the endpoint does not take.',
  417: 'The request carried an <code>Expect</code> header the server does not meet: only <code>100-continue</code> is. Send the request without it.',
  421: 'The MCP server listens on loopback and the request was addressed to another host (DNS-rebinding protection).',
  429: 'The origin rate limit was exceeded: wait the number of seconds in <code>Retry-After</code>, then retry.',
  431: `The request headers are larger than the server reads (${DEFAULT_LIMITS.maxHeaderBytes / 1024} KB in all).`,
  500: 'An origin or CDN fault. The payload is static, so retrying with backoff is safe.',
  503: 'The service is temporarily unavailable; retry with backoff.',
}

/** What a static copy says instead: it has no MCP server, so no `/mcp` and no 421. */
const STATIC_ERROR_ADVICE: Partial<Record<(typeof PROBLEM_STATUSES)[number], string>> = {
  405: 'The API is read-only: use GET or HEAD (the <code>Allow</code> header lists what the path takes).',
}
const STATIC_OMITTED_STATUSES: ReadonlySet<number> = new Set([421])

function schemaType(schema: RenderedSchema | undefined): string {
  if (!schema) return ''
  // An envelope reads best as its shape: {data: Episode, pagination: Pagination}.
  if (!schema.$ref && schema.properties) {
    return `{${Object.entries(schema.properties)
      .map(([field, property]) => `${escape(field)}: ${schemaType(property)}`)
      .join(', ')}}`
  }
  if (schema.$ref)
    return `<a href="#schema-${escape(schema.$ref.split('/').pop() ?? '')}">${escape(schema.$ref.split('/').pop() ?? '')}</a>`
  if (schema.anyOf) return schema.anyOf.map(schemaType).join(' or ')
  if (schema.type === 'array') return `array of ${schemaType(schema.items)}`
  const type = Array.isArray(schema.type)
    ? schema.type.join(' or ')
    : (schema.type ?? (schema.const !== undefined ? JSON.stringify(schema.const) : 'any'))
  return escape(`${type}${schema.format ? ` (${schema.format})` : ''}`)
}

function schemaTable(name: string, schema: RenderedSchema): string {
  const required = new Set(schema.required ?? [])
  const rows = Object.entries(schema.properties ?? {})
    .map(([field, property]) => {
      const description = prose(property.description)
      return `<tr><td>${code(field)}</td><td>${schemaType(property)}</td><td>${required.has(field) ? 'yes' : 'no'}</td><td>${description}</td></tr>`
    })
    .join('')
  return `<section id="schema-${escape(name)}" data-searchable><h3>${escape(name)}</h3><p>${prose(schema.description)}</p>
<div class="scroll"><table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Notes</th></tr></thead><tbody>${rows}</tbody></table></div></section>`
}

// nginx serves the pages a client reaches by following `next`, and refuses any other `limit`.
const STATIC_PAGINATION = `<p>Lists come in pages of ${DEFAULT_PAGE_LIMIT} items. Follow ${code('pagination.next')} (an absolute URL) until it is ${code('null')}. This copy is static files: it serves those pages only, and answers any other ${code('limit')} with a ${code('400')}.</p>`

function operationSection(
  path: string,
  operation: Operation,
  {snapshot, base, staticExport}: {snapshot: Snapshot; base: string; staticExport: boolean},
): string {
  const example = examplePath(path, snapshot, staticExport)
  const id = escape(operation.operationId)
  const parameters = operation.parameters
    .map(
      (parameter) =>
        `<tr><td>${code(parameter.name)}</td><td>${escape(parameter.in)}</td><td>${schemaType(parameter.schema)}</td><td>${prose(parameter.description)}</td></tr>`,
    )
    .join('')
  const responses = Object.entries(operation.responses)
    .map(([status, response]) => {
      const media = Object.entries(response.content ?? {})
        .map(([type, content]) => `${code(type)} ${schemaType(content.schema)}`)
        .join(', ')
      const link = Number(status) >= 400 ? ` <a href="#${problemAnchor(Number(status))}">(errors)</a>` : ''
      return `<li><strong>${escape(status)}</strong> ${prose(response.description)} ${media}${link}</li>`
    })
    .join('')
  return `<section class="operation" id="op-${id}" data-searchable>
<h3><span class="method">GET</span> ${code(`/api/v1${path}`)} <small>${id}</small></h3>
<p>${prose(operation.summary)}. ${prose(operation.description)}</p>
<div class="scroll"><table><thead><tr><th>Parameter</th><th>In</th><th>Type</th><th>Notes</th></tr></thead><tbody>${parameters}</tbody></table></div>
<ul class="responses">${responses}</ul>
${path === EVENTS_OPERATION_PATH ? eventsExample(`${base}${example}`, snapshot) : tryIt(example, id, snapshot, base)}</section>`
}

export function buildDeveloperPortal(input: {
  openapi: unknown
  settings: {publicBaseUrl: string; apiName: string; contactEmail?: string | undefined}
  snapshot: Snapshot
  tools: readonly ToolDefinition[]
  /** The podcast feed's public address, when the snapshot has a feed: linked for feed readers and people alike. */
  feedUrl?: string | undefined
  /** For static files (`npm run export`): no MCP section, and no example with `limit`, which they do not serve. */
  staticExport?: boolean | undefined
}): string {
  const {openapi, settings, snapshot, tools, feedUrl} = input
  const staticExport = input.staticExport === true
  const base = settings.publicBaseUrl
  const document = renderedDocument.parse(openapi)
  // Static files cannot answer a query: a static copy has no search.
  const operations = Object.entries(document.paths)
    .filter(
      ([path]) =>
        !(
          staticExport &&
          (path === SEARCH_OPERATION_PATH || path === CHANGES_OPERATION_PATH || path === EVENTS_OPERATION_PATH)
        ),
    )
    .map(([path, item]) => operationSection(path, item.get, {snapshot, base, staticExport}))
  const schemas = Object.entries(document.components.schemas).map(([name, schema]) => schemaTable(name, schema))
  const sample = snapshot.catalog.episodes[0]?.value
  const errors = PROBLEM_STATUSES.filter((status) => !(staticExport && STATIC_OMITTED_STATUSES.has(status)))
    .map(
      (status) =>
        `<section id="${problemAnchor(status)}"><h3>${status} ${escape(problemTitle(status))}</h3><p>${(staticExport && STATIC_ERROR_ADVICE[status]) || ERROR_ADVICE[status]}</p></section>`,
    )
    .join('\n')

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src '${SCRIPT_HASH}'; connect-src 'self'">
<title>${escape(settings.apiName)}: developer portal</title>
${feedUrl ? `<link rel="alternate" type="application/rss+xml" title="${escape(settings.apiName)}: podcast feed" href="${escape(feedUrl)}">\n` : ''}<style>
body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Hebrew",Arial,sans-serif;margin:0;color:#1d2330;background:#fbfbfd}
header{background:#1d2a4d;color:#fff;padding:2rem 1.5rem}header a{color:#fff;text-decoration:underline}header h1{margin:0 0 .3rem;font-size:1.8rem}header p{margin:0;opacity:.85}
nav{background:#eef1f8;padding:.6rem 1.5rem;position:sticky;top:0}nav a{margin-inline-end:1rem;color:#1d2a4d}
main{max-width:62rem;margin:0 auto;padding:1rem 1.5rem 4rem}h2{margin-top:2.5rem;border-bottom:2px solid #dde3f0;padding-bottom:.3rem}
code{font:14px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef1f8;padding:.05rem .3rem;border-radius:3px}
pre{background:#1d2330;color:#e8ecf5;padding:1rem;border-radius:6px;overflow-x:auto}pre code{background:none;color:inherit;padding:0}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem;font-size:15px}th,td{border:1px solid #dde3f0;padding:.35rem .5rem;text-align:start;vertical-align:top}th{background:#f2f4fa}
.operation{border:1px solid #dde3f0;border-radius:8px;padding:0 1rem;margin:1rem 0;background:#fff}.method{background:#1f7a4d;color:#fff;border-radius:4px;padding:.1rem .45rem;font-size:.8em}
small{color:#5b6477;font-weight:normal}.sample{background:#fff;border:1px solid #dde3f0;border-radius:6px;padding:.6rem 1rem}
.scroll{overflow-x:auto}button{font:inherit;max-width:100%;overflow-wrap:anywhere;text-align:start;padding:.3rem .8rem;border-radius:5px;border:1px solid #1d2a4d;background:#1d2a4d;color:#fff;cursor:pointer}
.try-out:empty{display:none}#search{font:inherit;width:100%;max-width:14rem;margin-inline-end:1rem;padding:.35rem .6rem;border:1px solid #c4cbe0;border-radius:5px;box-sizing:border-box}
details{margin:.5rem 0}summary{cursor:pointer}
@media (max-width:40rem){header{padding:1.2rem 1rem}main{padding:1rem}nav{position:static;display:flex;flex-wrap:wrap;gap:.2rem .8rem}nav a{margin:0}h3 code{word-break:break-all}.scroll table{min-width:34rem}.operation{padding:0 .6rem}}
@media (prefers-color-scheme:dark){body{background:#11141b;color:#dfe3ec}nav,th{background:#1b2130}nav a,a{color:#9db8ff}code{background:#1f2533}
.operation,.sample{background:#161b25;border-color:#2a3245}th,td{border-color:#2a3245}h2{border-color:#2a3245}small{color:#9aa3b5}#search{background:#161b25;color:#dfe3ec;border-color:#2a3245}}
</style>
</head>
<body>
<header><h1>${escape(settings.apiName)}</h1><p>Read-only JSON API${staticExport ? '' : ' and MCP server'} for a Hebrew tech podcast: ${snapshot.counts.episodes} episodes, ${snapshot.counts.meetups} meetup talks, ${snapshot.counts.voices} speakers.</p>${feedUrl ? `<p>Listen in any podcast app: <a href="${escape(feedUrl)}">the podcast's RSS feed</a>.</p>` : ''}</header>
<nav><input id="search" type="search" placeholder="Search the reference" aria-label="Search the reference"> <a href="#quick-start">Quick start</a><a href="#authentication">Authentication</a><a href="#errors">Errors</a><a href="#rate-limits">Rate limits</a><a href="#pagination">Pagination</a><a href="#caching">Caching</a><a href="#versioning">Versioning</a>${staticExport ? '' : '<a href="#mcp">MCP</a>'}<a href="#reference">Reference</a></nav>
<main>
<section id="quick-start"><h2>Quick start</h2>
<pre><code>curl ${escape(base)}/api/v1/all.json
curl ${escape(base)}/api/v1/episodes.json${staticExport ? '' : '?limit=5'}</code></pre>
<p>Everything is static JSON with UTF-8 Hebrew text. Cite content by its ${code('url')} (the canonical page), not its ${code('api_url')}. Clients must ignore unknown fields. The machine-readable contract is <a href="${escape(base)}/api/openapi.json">OpenAPI 3.1</a>; agents can start at <a href="${escape(base)}/llms.txt">llms.txt</a>.</p>
${sample ? `<div class="sample"><p>The newest episode:</p><p lang="he" dir="rtl"><strong>${escape(sample.title)}</strong><br>${escape(sample.description)}</p></div>` : ''}
<p>The sandbox prefix ${code('/api/v1/sandbox')} serves the same documents, byte for byte.</p></section>

<section id="authentication"><h2>Authentication</h2>
<p>None. No API key, registration, token, scope or ${code('Authorization')} header exists; a sent one is ignored. The service never answers 401 or 403. Please send a descriptive ${code('User-Agent')} naming your agent and a contact URL. Details: <a href="${escape(base)}/auth.md">auth.md</a>, <a href="${escape(base)}/.well-known/oauth-protected-resource">oauth-protected-resource</a>.</p></section>

<section id="errors"><h2>Errors</h2>
<p>Every error is ${code('application/problem+json')} (RFC 9457) with ${code('type')}, ${code('title')}, ${code('status')}, ${code('detail')} and ${code('instance')}. The ${code('type')} is a link to one of the sections below.</p>
${errors}</section>

<section id="rate-limits"><h2>Rate limits</h2>
<p>Requests are limited per client at the origin; the CDN absorbs the rest. Responses advertise the policy in ${code('RateLimit-Policy')} (${code('"<name>";q=<quota>;w=<window seconds>')}) and the remaining quota in ${code('RateLimit')}. Past the quota the answer is ${code('429')} with an integer ${code('Retry-After')}. ${settings.contactEmail ? `Ask ${escape(settings.contactEmail)} for higher limits.` : ''}</p></section>

<section id="pagination"><h2>Pagination</h2>
${staticExport ? STATIC_PAGINATION : `<p>Lists take ${code('limit')} (1 to 500, default 100: today the whole catalog is one page) and ${code('cursor')}. Follow ${code('pagination.next')} (an absolute URL) until it is ${code('null')}, or pass ${code('next_cursor')} as ${code('cursor')}. Cursors are keyset cursors, so a walk neither repeats nor skips items when content is published between requests. A bad ${code('limit')} or ${code('cursor')} is a ${code('400')} that says what is wrong.</p>`}</section>

<section id="caching"><h2>Caching and conditional requests</h2>
<p>Every response has a strong ${code('ETag')} and a ${code('Last-Modified')} that move only when the bytes change. Send the ETag back as ${code('If-None-Match')} (or the date as ${code('If-Modified-Since')}) for a bodiless ${code('304')}. <a href="${escape(base)}/sitemap-index.xml">sitemap-index.xml</a> lists every record with its last modification, so clients re-read only what moved.</p></section>

<section id="versioning"><h2>Versioning</h2>
<p>The major version is in the path (${code('/api/v1/')}); it is the current and only version. Additive changes ship in place; breaking changes ship under a new path. A retired version is announced here and served for at least six months next to its replacement, with ${code('Deprecation')} (RFC 9745), ${code('Sunset')} (RFC 8594) and a ${code('Link')} with ${code('rel="successor-version"')} on every response; none of these headers are sent while a version is current.</p></section>

${
  staticExport
    ? ''
    : `<section id="mcp"><h2>MCP server</h2>
<p>POST JSON-RPC to ${code(`${base}/mcp`)}: Streamable HTTP, stateless, no session, no authentication; both the 2026-07-28 protocol and the older ${code('initialize')} handshake work. Server card: <a href="${escape(base)}/.well-known/mcp/server-card.json">server-card.json</a>. ${tools.length} read-only tools:</p>
<table><thead><tr><th>Tool</th><th>What it does</th></tr></thead><tbody>${tools.map((tool) => `<tr><td>${code(tool.name)}</td><td>${prose(tool.description)}</td></tr>`).join('')}</tbody></table>
<p>Resources are the API documents themselves, at their API URLs, with slug completion on the item templates.</p></section>`
}

<section id="content-rights"><h2>Content rights</h2>
<p>Audio, video, artwork and written content (descriptions, abstracts, biographies, takeaways, FAQ) belong to the publisher. Catalog metadata (titles, dates, slugs, tags, URLs) may be reused with attribution: link to the item's ${code('url')}.</p></section>

<section id="reference"><h2>API reference</h2>
${operations.join('\n')}
<h2 id="schemas">Schemas</h2>
${schemas.join('\n')}</section>
</main>
<script>${PORTAL_SCRIPT}</script>
</body>
</html>
`
}

// Try-it buttons fetch from this origin and show status, validators and body; the search box
// hides reference sections that do not mention what is typed. Allowed by its hash in the CSP.
const PORTAL_SCRIPT = `
for (const button of document.querySelectorAll('button[data-try]')) {
  button.addEventListener('click', async () => {
    const out = document.getElementById(button.dataset.out)
    out.textContent = 'Sending…'
    try {
      const response = await fetch(button.dataset.try)
      const text = await response.text()
      let body = text
      try { body = JSON.stringify(JSON.parse(text), null, 2) } catch {}
      const shown = body.length > 4000 ? body.slice(0, 4000) + '\\n…' : body
      out.textContent = 'HTTP ' + response.status + '\\nETag: ' + response.headers.get('etag') + '\\nRateLimit: ' + response.headers.get('ratelimit') + '\\n\\n' + shown
    } catch (error) {
      out.textContent = String(error)
    }
  })
}
const search = document.getElementById('search')
search.addEventListener('input', () => {
  const wanted = search.value.trim().toLowerCase()
  for (const section of document.querySelectorAll('[data-searchable]')) section.hidden = wanted !== '' && !section.textContent.toLowerCase().includes(wanted)
})
`
const SCRIPT_HASH = `sha256-${createHash('sha256').update(PORTAL_SCRIPT).digest('base64')}`
