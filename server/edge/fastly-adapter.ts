import {callPurgeApi, inBatches, type PurgeAdapter} from './purge-adapter.ts'

/** Fastly purges at most 256 surrogate keys per call. */
const FASTLY_KEYS_PER_CALL = 256

/** Fastly's purge by surrogate key (`POST /service/{id}/purge`), hard or soft (objects marked stale, served while revalidating). */
export function fastlyAdapter(options: {
  apiUrl: string
  token: string
  serviceId: string
  softPurge: boolean
  timeoutMs?: number
}): PurgeAdapter {
  const url = `${options.apiUrl}/service/${encodeURIComponent(options.serviceId)}/purge`
  return {
    provider: 'fastly',
    async purge(keys) {
      for (const batch of inBatches(keys, FASTLY_KEYS_PER_CALL)) {
        const headers: Record<string, string> = {
          'fastly-key': options.token,
          'content-type': 'application/json',
          accept: 'application/json',
        }
        if (options.softPurge) headers['fastly-soft-purge'] = '1'
        await callPurgeApi(
          url,
          {method: 'POST', headers, body: JSON.stringify({surrogate_keys: batch})},
          'Fastly purge',
          {timeoutMs: options.timeoutMs ?? 10_000},
        )
      }
    },
  }
}
