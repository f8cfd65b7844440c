import {callPurgeApi, type PurgeAdapter} from './purge-adapter.ts'
import {PurgeFailure} from '../errors.ts'

export const PURGE_KEYS_HEADER = 'xkey-purge'
export const PURGE_TOKEN_HEADER = 'purge-token'
// Within Varnish's default http_req_hdr_len (8 KB) with room for the other request headers.
const MAX_PURGE_HEADER_BYTES = 6 * 1024

/** `keys` joined by spaces in headers of at most `maxBytes`. */
function keyHeaders(keys: readonly string[], maxBytes = MAX_PURGE_HEADER_BYTES): string[] {
  const headers: string[] = []
  let current = ''
  for (const key of keys) {
    if (current !== '' && Buffer.byteLength(current) + 1 + Buffer.byteLength(key) > maxBytes) {
      headers.push(current)
      current = ''
    }
    current = current === '' ? key : `${current} ${key}`
  }
  if (current !== '') headers.push(current)
  return headers
}

/**
 * Varnish with vmod_xkey, through the VCL `npm run edge:vcl` writes: `PURGE` with the keys in
 * `xkey-purge` and the shared token, to every Varnish listed (each holds its own cache). Succeeds
 * only when all of them confirmed; a retry purges again where it had worked, which is harmless.
 */
export function varnishAdapter(options: {urls: readonly string[]; token: string; timeoutMs?: number}): PurgeAdapter {
  const {urls, token, timeoutMs = 5000} = options
  const purgeOne = (url: string, header: string) =>
    callPurgeApi(
      url,
      {method: 'PURGE', headers: {[PURGE_KEYS_HEADER]: header, [PURGE_TOKEN_HEADER]: token}},
      `PURGE ${url}`,
      {timeoutMs},
    )
  return {
    provider: 'varnish',
    async purge(keys) {
      for (const header of keyHeaders(keys)) {
        const outcomes = await Promise.allSettled(urls.map((url) => purgeOne(url, header)))
        const failed = outcomes
          .filter((outcome) => outcome.status === 'rejected')
          .map((outcome): unknown => outcome.reason)
        if (failed.length > 0) throw failed[0] instanceof PurgeFailure ? failed[0] : new PurgeFailure(String(failed[0]))
      }
    },
  }
}
