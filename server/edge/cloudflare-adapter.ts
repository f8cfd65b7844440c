import {z} from 'zod'
import {callPurgeApi, inBatches, type PurgeAdapter} from './purge-adapter.ts'
import {PurgeFailure} from '../errors.ts'

/** Cloudflare takes at most 100 tags per purge call. */
const CLOUDFLARE_TAGS_PER_CALL = 100

const answerSchema = z.looseObject({
  success: z.boolean(),
  errors: z.array(z.looseObject({code: z.number().optional(), message: z.string().optional()})).default([]),
})

/** Cloudflare's purge by cache tag (`POST /zones/{zone}/purge_cache`); an answer with `success: false` is a failure whatever its status. */
export function cloudflareAdapter(options: {
  apiUrl: string
  token: string
  zoneId: string
  timeoutMs?: number
}): PurgeAdapter {
  const url = `${options.apiUrl}/zones/${encodeURIComponent(options.zoneId)}/purge_cache`
  return {
    provider: 'cloudflare',
    async purge(keys) {
      for (const batch of inBatches(keys, CLOUDFLARE_TAGS_PER_CALL)) {
        const {text} = await callPurgeApi(
          url,
          {
            method: 'POST',
            headers: {authorization: `Bearer ${options.token}`, 'content-type': 'application/json'},
            body: JSON.stringify({tags: batch}),
          },
          'Cloudflare purge',
          {timeoutMs: options.timeoutMs ?? 10_000},
        )
        const answer = answerSchema.safeParse(jsonOf(text))
        if (!answer.success) throw new PurgeFailure('Cloudflare purge: the answer was not the API envelope')
        if (!answer.data.success) {
          const detail = answer.data.errors
            .map((error) => `${error.code ?? ''} ${error.message ?? ''}`.trim())
            .join('; ')
          throw new PurgeFailure(`Cloudflare purge refused: ${detail || 'success: false'}`)
        }
      }
    },
  }
}

/** The parsed JSON, or undefined when the text is not JSON (or was cut at the answer bound). */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
