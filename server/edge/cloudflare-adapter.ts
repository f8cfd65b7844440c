import {z} from 'zod'
import {failureOf, inBatches, PurgeFailure, type PurgeAdapter} from './purge-adapter.ts'

/** Cloudflare takes at most 100 tags per purge call. */
const CLOUDFLARE_TAGS_PER_CALL = 100

const answerSchema = z.looseObject({success: z.boolean(), errors: z.array(z.looseObject({code: z.number().optional(), message: z.string().optional()})).default([])})

/** Cloudflare's purge by cache tag (`POST /zones/{zone}/purge_cache`); an answer with `success: false` is a failure whatever its status. */
export function cloudflareAdapter(options: {apiUrl: string; token: string; zoneId: string; timeoutMs?: number}): PurgeAdapter {
  const url = `${options.apiUrl}/zones/${encodeURIComponent(options.zoneId)}/purge_cache`
  return {
    provider: 'cloudflare',
    async purge(keys) {
      for (const batch of inBatches(keys, CLOUDFLARE_TAGS_PER_CALL)) {
        let response: Response
        try {
          response = await fetch(url, {
            method: 'POST',
            headers: {authorization: `Bearer ${options.token}`, 'content-type': 'application/json'},
            body: JSON.stringify({tags: batch}),
            signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
          })
        } catch (error) {
          throw new PurgeFailure(`Cloudflare purge: ${error instanceof Error ? error.message : String(error)}`, {cause: error})
        }
        if (!response.ok) throw await failureOf(response, 'Cloudflare purge')
        const answer = answerSchema.safeParse(await response.json().catch(() => undefined))
        if (!answer.success) throw new PurgeFailure('Cloudflare purge: the answer was not the API envelope')
        if (!answer.data.success) {
          const detail = answer.data.errors.map((error) => `${error.code ?? ''} ${error.message ?? ''}`.trim()).join('; ')
          throw new PurgeFailure(`Cloudflare purge refused: ${detail || 'success: false'}`)
        }
      }
    },
  }
}
