import {missingItemDetail, notASlugDetail, unknownApiPathDetail} from '../http/resolve.ts'
import {readOnlyDetail} from '../http/api-router.ts'
import {API_V1_PREFIX, COLLECTION_NAMES, COLLECTION_PATTERN} from '../../catalog/v1/links.ts'
import {lifecycleHeaders, type VersionLifecycle} from '../http/lifecycle.ts'
import {buildProblem, unknownPathDetail, type ProblemStatus} from '../http/problem.ts'
import {CACHE_CONTROL} from '../http/representation-response.ts'
import {EXPOSED_HEADERS, PREFLIGHT_HEADERS} from '../http/request-listener.ts'
import {CURSOR_DIRECTORY, type StaticFile} from './static-files.ts'
import {MEDIA_TYPES, TRANSCRIPT_MEDIA_TYPES} from '../../catalog/media-types.ts'
import {TRANSCRIPT_FORMATS} from '../../catalog/v1/transcript.ts'

/** An episode's own documents (a path pattern's last part) and the type each is served as. */
const EPISODE_DOCUMENTS = [
  {file: 'chapters\\.json', type: MEDIA_TYPES.chapters},
  ...TRANSCRIPT_FORMATS.map((format) => ({
    file: `transcript\\.${format.extension}`,
    type: TRANSCRIPT_MEDIA_TYPES[format.extension],
  })),
]

export interface NginxSettings {
  /** Absolute path of the export. */
  root: string
  /** What `listen` says, such as `8080` or `127.0.0.1:8080`. */
  listen: string
  publicBaseUrl: string
  lifecycle?: VersionLifecycle | undefined
  /** The brotli_static module to load, if nginx has it (Debian: libnginx-mod-http-brotli-static). */
  brotliModule?: string | undefined
}

// Placeholders replaced by nginx variables once the text is escaped.
const DETAIL = '@@detail@@'
const INSTANCE = '@@instance@@'
const SLUG = '@@slug@@'
const METHOD = '@@method@@'
/** Internal locations that answer nginx's own refusals. */
const REFUSALS = '/_catalog_refusal'

/** A quoted nginx string: `$` cannot be escaped in nginx, so it comes from a `geo` variable. */
function quoted(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('$', '${catalog_dollar}')}'`
}

/** JSON string content (without the quotes), as JSON.stringify writes it. */
const jsonText = (text: string) => JSON.stringify(text).slice(1, -1)

function withVariables(text: string): string {
  return text
    .replaceAll(DETAIL, '$catalog_detail')
    .replaceAll(INSTANCE, '$catalog_instance')
    .replaceAll(SLUG, '$catalog_slug')
    .replaceAll(METHOD, '$request_method')
}

function problemBody(publicBaseUrl: string, status: ProblemStatus, detail: string): string {
  return withVariables(quoted(JSON.stringify(buildProblem(publicBaseUrl, status, detail, INSTANCE))))
}

function headerLines(headers: [string, string][], indent = '    '): string {
  return headers.map(([name, value]) => `${indent}add_header ${name} ${quoted(value)} always;`).join('\n')
}

// nginx answers range requests of a static file itself and says so: adding it again would send it twice.
const NGINX_OWN = new Set(['Accept-Ranges'])

/**
 * An nginx configuration that serves a static export with the origin's headers, status codes and
 * problem bodies: pre-compressed siblings (`brotli_static`, `gzip_static`), `Vary`, the same
 * Cache-Control, CORS and nosniff, file dates equal to the origin's Last-Modified, and the same
 * problem+json for 404 and 405; nginx's own refusals (400, 413, 414, 431, 500) are problem+json
 * too, and the compressed siblings are not URLs. ETags are nginx's own (modification time and size), distinct per
 * coding as RFC 9110 requires. What a static server cannot do is listed in docs/export.md.
 */
export function nginxConfig(files: readonly StaticFile[], settings: NginxSettings): string {
  const {publicBaseUrl} = settings
  const common: [string, string][] = [
    ['X-Content-Type-Options', 'nosniff'],
    ['Access-Control-Allow-Origin', '*'],
    ['Access-Control-Expose-Headers', EXPOSED_HEADERS],
  ]
  const api: [string, string][] = [...common, ...(settings.lifecycle ? lifecycleHeaders(settings.lifecycle) : [])]
  const success = (headers: [string, string][]) =>
    `      if ($catalog_preflight) {
${headerLines([...common, ...PREFLIGHT_HEADERS], '        ')}
        return 204;
      }
${headerLines([['Cache-Control', CACHE_CONTROL], ...headers], '      ')}`
  const siteDocuments = files.filter((file) => !file.url.startsWith(`${API_V1_PREFIX}/`))
  const detailRules = COLLECTION_NAMES.flatMap((collection) => [
    `    "~^${API_V1_PREFIX}/(?:sandbox/)?${collection}/(?<catalog_slug>[a-z0-9-]{1,128})\\.json(?:\\?.*)?$" ${withVariables(quoted(jsonText(missingItemDetail(publicBaseUrl, collection, SLUG))))};`,
    `    "~^${API_V1_PREFIX}/(?:sandbox/)?${collection}/(?<catalog_slug>[A-Za-z0-9._~!&()*+,;=:@%-]*)\\.json(?:\\?.*)?$" ${withVariables(quoted(jsonText(notASlugDetail(publicBaseUrl, collection, SLUG))))};`,
  ])

  // Requests nginx refuses before they reach a location; those it could not parse have no path
  // to name, so their instance is "/" as at the origin.
  const refusals: [string, ProblemStatus, string, string][] = [
    ['bad-request', 400, '/', 'The request is not valid HTTP/1.1.'],
    ['too-large', 413, INSTANCE, 'This static copy of the API takes no request bodies of this size.'],
    ['uri-too-long', 414, '/', 'The request target is longer than this server reads.'],
    ['headers-too-large', 431, '/', 'The request line and headers are larger than this server reads.'],
    ['failed', 500, INSTANCE, 'The server failed to answer. The payload is static, so a retry with backoff is safe.'],
  ]

  return `# Generated by \`npm run export\`: the catalog as static files, answered as the origin answers.
${settings.brotliModule ? `load_module ${settings.brotliModule};\n` : ''}worker_processes 1;
pid nginx.pid;
error_log stderr error;
events {
  worker_connections 1024;
}
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  server_tokens off;
  etag on;
  client_body_temp_path tmp/body;
  proxy_temp_path tmp/proxy;
  fastcgi_temp_path tmp/fastcgi;
  uwsgi_temp_path tmp/uwsgi;
  scgi_temp_path tmp/scgi;

  # nginx cannot escape "$" in a string; this variable holds one.
  geo $catalog_dollar {
    default "$";
  }
  # The request path in problem bodies, when it needs no JSON escaping (else "/").
  map $request_uri $catalog_instance {
    "~^[A-Za-z0-9._~!&()*+,;=:@/?%-]*$" $request_uri;
    default "/";
  }
  map $request_uri $catalog_detail {
${detailRules.join('\n')}
    "~^${API_V1_PREFIX}(?:[/?].*)?$" ${quoted(jsonText(unknownApiPathDetail(publicBaseUrl)))};
    default ${quoted(jsonText(unknownPathDetail(publicBaseUrl)))};
  }
  # Lists: the first page, or a later one by the cursor its \`next\` link carries.
  map $request_uri $catalog_page {
    "~^(?<catalog_list>${API_V1_PREFIX}/(?:sandbox/)?(?:${COLLECTION_PATTERN}))\\.json$" $catalog_list.json;
    "~^(?<catalog_list>${API_V1_PREFIX}/(?:sandbox/)?(?:${COLLECTION_PATTERN}))\\.json\\?cursor=(?<catalog_cursor>[A-Za-z0-9_-]+)$" $catalog_list/${CURSOR_DIRECTORY}/$catalog_cursor.json;
    default "";
  }
  map "$request_method $http_origin $http_access_control_request_method" $catalog_preflight {
    "~^OPTIONS \\S+ \\S+$" 1;
    default "";
  }

  server {
    listen ${settings.listen};
    root ${settings.root};
    index catalog-has-no-index-files;
    ${settings.brotliModule ? 'brotli_static on;' : '# brotli_static on; (load ngx_http_brotli_static_module to serve .br files)'}
    gzip_static on;
    gzip_vary on;
    charset off;
    error_page 403 404 = @catalog_not_found;
    error_page 405 = @catalog_not_allowed;
    # nginx's own refusals, which it would answer with an HTML page. 501 and 505 (a transfer
    # coding or HTTP version it does not speak) are requests it cannot read: 400s, as the
    # origin answers an HTTP version it does not speak. 494 is its name for headers too large.
    # They go to URIs, not named locations: a request nginx could not parse has no URI, and
    # nginx refuses to enter a named location without one.
    error_page 400 501 505 = ${REFUSALS}/bad-request;
    error_page 413 = ${REFUSALS}/too-large;
    error_page 414 = ${REFUSALS}/uri-too-long;
    error_page 494 = ${REFUSALS}/headers-too-large;
    error_page 500 502 503 504 = ${REFUSALS}/failed;

    location / {
      types {}
      default_type ${quoted(MEDIA_TYPES.json)};
${success(api)}
      try_files $uri =404;
    }
    # The pre-compressed siblings are how gzip_static and brotli_static find a coding, never URLs.
    location ~ "\\.(?:br|gz)$" {
      return 404;
    }
    location ~ "/${CURSOR_DIRECTORY}/" {
      internal;
    }
${EPISODE_DOCUMENTS.map(
  ({file, type}) => `    location ~ "^${API_V1_PREFIX}/(?:sandbox/)?episodes/[a-z0-9-]{1,128}/${file}$" {
      types {}
      default_type ${quoted(type)};
${success(api)}
      try_files $uri =404;
    }
`,
).join('')}    location ~ "^${API_V1_PREFIX}/(?:sandbox/)?(?:${COLLECTION_PATTERN})\\.json$" {
      types {}
      default_type ${quoted(MEDIA_TYPES.json)};
${success(api)}
      try_files $catalog_page @catalog_bad_page;
    }
${siteDocuments
  .map(
    (file) => `    location = ${file.url} {
      types {}
      default_type ${quoted(file.representation.contentType)};
${success([...common, ...Object.entries(file.representation.headers).filter(([name]) => !NGINX_OWN.has(name))])}
      try_files $uri =404;
    }`,
  )
  .join('\n')}
    location @catalog_not_found {
      default_type ${quoted(MEDIA_TYPES.problem)};
${headerLines([['Cache-Control', 'no-store'], ...api], '      ')}
      return 404 ${problemBody(publicBaseUrl, 404, DETAIL)};
    }
    location @catalog_not_allowed {
      default_type ${quoted(MEDIA_TYPES.problem)};
${headerLines([['Cache-Control', 'no-store'], ['Allow', 'GET, HEAD'], ...api], '      ')}
      if (!-f $request_filename) {
        return 404 ${problemBody(publicBaseUrl, 404, DETAIL)};
      }
      return 405 ${problemBody(publicBaseUrl, 405, readOnlyDetail(METHOD))};
    }
${refusals
  .map(
    ([name, status, instance, detail]) => `    location = ${REFUSALS}/${name} {
      internal;
      default_type ${quoted(MEDIA_TYPES.problem)};
${headerLines([['Cache-Control', 'no-store'], ...api], '      ')}
      return ${status} ${withVariables(quoted(JSON.stringify(buildProblem(publicBaseUrl, status, detail, instance))))};
    }`,
  )
  .join('\n')}
    location @catalog_bad_page {
      default_type ${quoted(MEDIA_TYPES.problem)};
${headerLines([['Cache-Control', 'no-store'], ...api], '      ')}
      return 400 ${problemBody(publicBaseUrl, 400, "This static copy of the API serves pages of 100 items, reached by the cursor in each page's next link. Other limits and cursors need the origin.")};
    }
  }
}
`
}
