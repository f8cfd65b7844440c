import type {ServerResponse} from 'node:http'
import {buildProblem, sendProblem} from './problem.ts'

/** A deprecated API version (the spec's Versioning part); absent while the version is current. */
export interface VersionLifecycle {
  deprecation: Date
  sunset: Date
  successorUrl: string
}

/**
 * The headers every response of a deprecated version carries: `Deprecation` as RFC 9745 defines
 * it (a structured-field date, `@<unix seconds>`; the spec's "HTTP-date" predates the RFC),
 * `Sunset` as an HTTP-date (RFC 8594) and the successor `Link` (RFC 8288).
 */
export function lifecycleHeaders(lifecycle: VersionLifecycle): [string, string][] {
  return [
    ['Deprecation', `@${Math.floor(lifecycle.deprecation.getTime() / 1000)}`],
    ['Sunset', lifecycle.sunset.toUTCString()],
    ['Link', successorLink(lifecycle)],
  ]
}

function successorLink(lifecycle: VersionLifecycle): string {
  return `<${lifecycle.successorUrl}>; rel="successor-version"`
}

/** After the sunset the version is gone: 410 with the way forward. */
export function sendRetired(
  request: {method?: string | undefined; url?: string | undefined},
  response: ServerResponse,
  lifecycle: VersionLifecycle,
  publicBaseUrl: string,
  extraHeaders: readonly string[],
): void {
  const detail = `This API version was retired on ${lifecycle.sunset.toUTCString()}. Its successor is ${lifecycle.successorUrl}.`
  sendProblem(
    request,
    response,
    buildProblem(publicBaseUrl, 410, detail, request.url ?? '/'),
    {Link: successorLink(lifecycle)},
    extraHeaders,
  )
}
