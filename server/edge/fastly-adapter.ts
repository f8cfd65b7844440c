import {failureOf, inBatches, PurgeFailure, type PurgeAdapter} from './purge-adapter.ts'

/** Fastly purges at most 256 surrogate keys per call. */
const FASTLY_KEYS_PER_CALL = 256

/** Fastly's purge by surrogate key (`POST /service/{id}/purge`), hard or soft (objects marked stale, served while revalidating). */
export function fastlyAdapter(options: {apiUrl: string; token: string; serviceId: string; softPurge: boolean; timeoutMs?: number}): PurgeAdapter {
  const url = `${options.apiUrl}/service/${encodeURIComponent(options.serviceId)}/purge`
  return {
    provider: 'fastly',
    async purge(keys) {
      for (const batch of inBatches(keys, FASTLY_KEYS_PER_CALL)) {
        const headers: Record<string, string> = {'fastly-key': options.token, 'content-type': 'application/json', accept: 'application/json'}
        if (options.softPurge) headers['fastly-soft-purge'] = '1'
        let response: Response
        try {
          response = await fetch(url, {method: 'POST', headers, body: JSON.stringify({surrogate_keys: batch}), signal: AbortSignal.timeout(options.timeoutMs ?? 10_000)})
        } catch (error) {
          throw new PurgeFailure(`Fastly purge: ${error instanceof Error ? error.message : String(error)}`, {cause: error})
        }
        if (!response.ok) throw await failureOf(response, 'Fastly purge')
        await response.body?.cancel()
      }
    },
  }
}
