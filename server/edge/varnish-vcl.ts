import {isIPv4, isIPv6} from 'node:net'
import {PURGE_KEYS_HEADER, PURGE_TOKEN_HEADER} from './varnish-adapter.ts'
import {errorMessage} from '../errors.ts'

export interface VarnishBackend {
  host: string
  port: number
}

export interface VarnishVclOptions {
  backends: readonly VarnishBackend[]
  /** Addresses or CIDR ranges PURGE is accepted from (loopback when none). */
  purgers: readonly string[]
  /** Addresses or CIDR ranges that may read /status and /metrics (loopback when none); anyone else gets a 404. */
  operators: readonly string[]
  /** CDN_PURGE_TOKEN: PURGE must carry it as well as come from an allowed address. */
  token: string
}

/**
 * Bigger storage chunks, so a large document is not stored in many small ones, and no gzip handling
 * of Varnish's own (it would send the origin `Accept-Encoding: gzip` only, so brotli would never be cached).
 */
const RECOMMENDED_PARAMETERS: Readonly<Record<string, string>> = {fetch_chunksize: '256k', http_gzip_support: 'off'}

export function varnishParameters(parameters: Readonly<Record<string, string>> = RECOMMENDED_PARAMETERS): string {
  return Object.entries(parameters)
    .map(([name, value]) => `-p ${name}=${value}\n`)
    .join('')
}

const TOKEN_PATTERN = /^[A-Za-z0-9._~+/=-]{16,256}$/
const HOST_PATTERN = /^[A-Za-z0-9.-]+$|^\[[0-9A-Fa-f:]+\]$/
const LOOPBACK = ['127.0.0.1', '::1']

/** An IPv4 or IPv6 address as a number, with its width in bits; undefined when it is neither. */
function addressValue(address: string): {value: bigint; width: number} | undefined {
  if (isIPv4(address))
    return {value: address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(part), 0n), width: 32}
  // A zone (fe80::1%eth0) names an interface, which an ACL cannot match on.
  if (!isIPv6(address) || address.includes('%')) return undefined
  const [head = '', tail] = new URL(`http://[${address}]`).hostname.slice(1, -1).split('::')
  const groups = (text: string | undefined) => (text ? text.split(':') : [])
  // `::` stands for as many zero groups as the eight need.
  const zeros = tail === undefined ? 0 : 8 - groups(head).length - groups(tail).length
  const hextets = [...groups(head), ...Array.from({length: zeros}, () => '0'), ...groups(tail)]
  return {value: hextets.reduce((sum, hextet) => (sum << 16n) | BigInt(`0x${hextet}`), 0n), width: 128}
}

function addressText(value: bigint, width: number): string {
  if (width === 32) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.')
  const hextets = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((value >> shift) & 0xffffn).toString(16))
  return new URL(`http://[${hextets.join(':')}]`).hostname.slice(1, -1)
}

/**
 * A Varnish ACL entry for an address or CIDR range, checked as varnishd would check it when it
 * compiles the VCL (which it then refuses to start with), so the mistake is named here instead.
 */
function aclEntry(entry: string): string {
  const [address = '', bits, ...rest] = entry.split('/')
  const parsed = addressValue(address)
  if (!parsed || rest.length > 0) throw new Error(`not an IP address or CIDR range: ${JSON.stringify(entry)}`)
  if (bits === undefined) return `"${address}";`
  const prefix = /^(0|[1-9]\d{0,2})$/.test(bits) ? Number(bits) : Number.NaN
  if (!(prefix <= parsed.width))
    throw new Error(`${entry}: the prefix length must be a number from 0 to ${parsed.width}`)
  const hostBits = BigInt(parsed.width - prefix)
  const network = (parsed.value >> hostBits) << hostBits
  if (network !== parsed.value)
    throw new Error(
      `${entry} has bits set past its /${prefix} prefix; did you mean ${addressText(network, parsed.width)}/${prefix}?`,
    )
  return `"${address}"/${prefix};`
}

/** An ACL's entries from an option given once or more, each value a comma-separated list; loopback when none. */
function aclEntries(option: string, values: readonly string[]): string[] {
  const entries = values.flatMap((value) => value.split(',')).map((entry) => entry.trim())
  return (entries.length > 0 ? entries : LOOPBACK).map((entry) => {
    try {
      return aclEntry(entry)
    } catch (error) {
      throw new Error(`${option}: ${errorMessage(error)}`, {cause: error})
    }
  })
}

function problemBody(statusExpression: string, detailExpression: string): string {
  // VCL long strings cannot hold `"}`; reasons and details here never do.
  return `{"{"type":"about:blank","status":"} + ${statusExpression} + {","title":""} + ${detailExpression} + {"""} + "}"`
}

/** A VCL 4.1 for Varnish 7 with vmod_xkey in front of the catalog's origins. */
export function varnishVcl(options: VarnishVclOptions): string {
  if (options.backends.length === 0) throw new Error('at least one --backend HOST:PORT is needed')
  if (!TOKEN_PATTERN.test(options.token))
    throw new Error('CDN_PURGE_TOKEN must be 16 to 256 letters, digits or ._~+/=-')
  const purgers = aclEntries('--purger', options.purgers)
  const operators = aclEntries('--operator-acl', options.operators)
  const backends = options.backends.map((backend, index) => {
    if (!HOST_PATTERN.test(backend.host)) throw new Error(`not a host name or address: ${backend.host}`)
    return `backend origin_${index} {
    .host = "${backend.host.replace(/^\[|\]$/g, '')}";
    .port = "${backend.port}";
    .probe = origin_health;
    .connect_timeout = 1s;
    .first_byte_timeout = 15s;
    .between_bytes_timeout = 15s;
}`
  })
  return `vcl 4.1;
# Generated by \`npm run edge:vcl\`: the catalog API behind Varnish 7 with vmod_xkey.
# The origin names each response's surrogate keys in \`xkey\` and its edge TTL in CDN-Cache-Control
# (RFC 9213); the origin purges by key with PURGE when a new snapshot is served.

import std;
import xkey;
import directors;

probe origin_health {
    .url = "/api/v1/index.json";
    .interval = 2s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
}

${backends.join('\n\n')}

acl purgers {
    ${purgers.join('\n    ')}
}

acl operators {
    ${operators.join('\n    ')}
}

sub vcl_init {
    new origins = directors.round_robin();
${options.backends.map((_, index) => `    origins.add_backend(origin_${index});`).join('\n')}
}

sub vcl_recv {
    set req.backend_hint = origins.backend();
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Purging is not allowed from this address"));
        }
        if (req.http.${PURGE_TOKEN_HEADER} != {"${options.token}"}) {
            return (synth(403, "The purge token is missing or wrong"));
        }
        if (!req.http.${PURGE_KEYS_HEADER}) {
            return (synth(400, "Name the surrogate keys to purge in ${PURGE_KEYS_HEADER}"));
        }
        set req.http.purged = xkey.purge(req.http.${PURGE_KEYS_HEADER});
        return (synth(200, "Purged"));
    }
    unset req.http.${PURGE_TOKEN_HEADER};
    # Varnish makes an absolute-form target a path for http:// only; the origin routes any
    # scheme's by its path (HTTP://host/metrics is /metrics there), so they become paths here too.
    if (req.url ~ "^(?i)[a-z][a-z0-9+.-]*://") {
        set req.http.Host = regsub(req.url, "^(?i)[a-z][a-z0-9+.-]*://([^/?#]*).*$", "\\1");
        set req.url = regsub(req.url, "^(?i)[a-z][a-z0-9+.-]*://[^/?#]*", "");
        if (req.url !~ "^/") {
            set req.url = "/" + req.url;
        }
    }
    # The operator's pages: only from the --operator-acl addresses; anyone else gets a 404, as for
    # a path that does not exist. Matched more loosely (any case, extra slashes) than the origin routes.
    if (req.url ~ "^(?i)/+(status|metrics)(/|[?#]|$)") {
        if (client.ip !~ operators) {
            return (synth(404, "Not Found"));
        }
        return (pass);
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    # Live events: a stream, neither cached nor buffered; the origin's heartbeat (every 10 s) keeps
    # the pipe open, and its Connection: close ends it with the stream.
    if (req.url ~ "^/api/v1/(sandbox/)?events(\\?|$)") {
        return (pipe);
    }
    if (req.url ~ "^/mcp(/|\\?|$)") {
        return (pass);
    }
    # The origin ignores both; keeping them would make every response uncacheable.
    unset req.http.Cookie;
    unset req.http.Authorization;
    # One cached variant per coding the origin makes, not one per client's header spelling.
    if (req.http.Accept-Encoding ~ "(?i)(^|,)\\s*br\\s*(,|$|;\\s*q=(1|0?\\.0*[1-9]))") {
        set req.http.Accept-Encoding = "br";
    } elsif (req.http.Accept-Encoding ~ "(?i)(^|,)\\s*(x-)?gzip\\s*(,|$|;\\s*q=(1|0?\\.0*[1-9]))") {
        set req.http.Accept-Encoding = "gzip";
    } else {
        unset req.http.Accept-Encoding;
    }
    # Stale-while-revalidate for 5 minutes while the origin is healthy; while it is down, the
    # whole grace (stale-if-error) is served.
    if (std.healthy(req.backend_hint)) {
        set req.grace = 300s;
    }
    return (hash);
}

sub vcl_backend_response {
    # The origin says no-store when it prepared a response from a catalog it has replaced since
    # (it waited on a first compression across a publish): the purge for the new catalog may have
    # come while this fetch was under way, and xkey skips an object still being fetched. Not kept;
    # a one-second hit-for-miss, so the next request fetches afresh and its answer is cached.
    if (beresp.http.CDN-Cache-Control ~ "(?i)no-store") {
        unset beresp.http.CDN-Cache-Control;
        unset beresp.http.Surrogate-Control;
        set beresp.uncacheable = true;
        set beresp.ttl = 1s;
        return (deliver);
    }
    if (beresp.http.CDN-Cache-Control ~ "max-age=[0-9]+") {
        set beresp.ttl = std.duration(regsub(beresp.http.CDN-Cache-Control, "^.*max-age=([0-9]+).*$", "\\1s"), 60s);
    }
    if (beresp.http.CDN-Cache-Control ~ "stale-if-error=[0-9]+") {
        set beresp.grace = std.duration(regsub(beresp.http.CDN-Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\\1s"), 300s);
    }
    unset beresp.http.CDN-Cache-Control;
    unset beresp.http.Surrogate-Control;
    # A failed background refresh keeps the stale object rather than caching the error.
    if (beresp.status >= 500 && bereq.is_bgfetch) {
        return (abandon);
    }
}

sub vcl_backend_error {
    set beresp.http.Content-Type = "application/problem+json";
    set beresp.http.Cache-Control = "no-store";
    set beresp.ttl = 0s;
    set beresp.body = ${problemBody('"503"', '"The origin did not answer and nothing cached can stand in for it. Retry with backoff."')};
    set beresp.status = 503;
    return (deliver);
}

sub vcl_deliver {
    # Keys are for this cache alone.
    unset resp.http.xkey;
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}

sub vcl_synth {
    set resp.http.Cache-Control = "no-store";
    if (req.method == "PURGE" && resp.status == 200) {
        set resp.http.Content-Type = "application/json";
        set resp.body = {"{"purged":"} + req.http.purged + {"}"};
        return (deliver);
    }
    set resp.http.Content-Type = "application/problem+json";
    set resp.body = ${problemBody('resp.status', 'resp.reason')};
    return (deliver);
}
`
}

export interface VarnishdCommandOptions {
  /** varnishd's absolute path when found, else its name. */
  program: string
  listen: string
  storage: string
  vclFile: string
  parametersFile: string
}

/** The command line that starts varnishd with a VCL `varnishVcl` wrote; varnishd looks a relative `-f` up in its own VCL path, so paths are absolute. */
export function varnishdCommand(options: VarnishdCommandOptions): string {
  const quoted = (value: string) => (/^[\w./:,=@%+-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`)
  return `${quoted(options.program)} -a ${quoted(options.listen)} -f ${quoted(options.vclFile)} -s ${quoted(options.storage)} $(cat ${quoted(options.parametersFile)})`
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/

/**
 * Every link the origin writes (`api_url`, the feed, discovery documents) is built from
 * PUBLIC_BASE_URL, and the edge caches them as they are: behind a CDN it must be the edge's public
 * address. Only a loopback or missing one is surely wrong, and only when the origin purges a CDN.
 */
export function edgeAddressWarning(
  publicBaseUrl: string | undefined,
  cdnPurge: string | undefined,
): string | undefined {
  if (!cdnPurge) return undefined
  if (!publicBaseUrl)
    return `CDN_PURGE is ${cdnPurge} but PUBLIC_BASE_URL is not set: the origin's links would name http://localhost:PORT. Set it to the edge's public address.`
  const host = URL.parse(publicBaseUrl)?.hostname
  if (host !== undefined && LOOPBACK_HOST.test(host)) {
    return `CDN_PURGE is ${cdnPurge} but PUBLIC_BASE_URL is ${publicBaseUrl}, a loopback address: the edge would cache links clients cannot follow. Set it to the edge's public address.`
  }
  return undefined
}
