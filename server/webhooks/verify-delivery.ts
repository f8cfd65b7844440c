import {assertValidSignature, decodeSignatureHeader, isSignatureError, SIGNATURE_HEADER_NAME} from '@sanity/webhook'
import {z} from 'zod'
import {documentChangeOf, isPodcastSettingsChange, type ContentChange} from '../content/content-change.ts'

export const MAX_AGE_MS = 5 * 60 * 1000
// Only verified deliveries are remembered, so only a holder of the secret can fill this; at the
// bound the oldest is forgotten. Keys are cut to a length, so memory stays under a few MB.
const MAX_REMEMBERED_DELIVERIES = 10_000
const MAX_IDEMPOTENCY_KEY_LENGTH = 256

/** The projection docs/content-and-webhooks.md asks for: `{_id, _type}`; anything else is still a valid hint to rebuild everything. */
const payloadSchema = z.looseObject({_id: z.string().min(1), _type: z.string().min(1)})

/** An accepted verdict names the keys it was remembered under, so a delivery that could not be recorded can be forgotten. */
export type Verdict =
  | {accepted: false; status: 400 | 409; detail: string}
  | {accepted: true; change: ContentChange | 'ignored'; remembered: readonly string[]}

export interface Delivery {
  body: Buffer
  headers: Readonly<Record<string, string | string[] | undefined>>
}

/**
 * Signatures and idempotency keys already accepted, each until it stops mattering (a delivery
 * signed that long ago is refused as stale anyway), at most `bound` of them, oldest out first.
 */
export class RememberedDeliveries {
  // Key -> when it expires. Insertion order is expiry order.
  readonly #expiries = new Map<string, number>()
  readonly #bound: number

  constructor(bound = MAX_REMEMBERED_DELIVERIES) {
    this.#bound = bound
  }

  get size(): number {
    return this.#expiries.size
  }

  has(key: string): boolean {
    return this.#expiries.has(key)
  }

  forgetExpired(now: number): void {
    for (const [key, expiresAt] of this.#expiries) {
      if (expiresAt > now) return
      this.#expiries.delete(key)
    }
  }

  forget(keys: readonly string[]): void {
    for (const key of keys) this.#expiries.delete(key)
  }

  remember(key: string, now: number): void {
    if (this.#expiries.size >= this.#bound) this.#expiries.delete(this.#expiries.keys().next().value ?? '')
    this.#expiries.set(key, now + 2 * MAX_AGE_MS)
  }
}

/**
 * Whether a delivery is one to act on: the HMAC signature of the raw body with `secret`, signed
 * at most 5 minutes from `now` either way, and neither its signature nor its idempotency-key seen
 * before. An accepted delivery is remembered in `seen`; nothing else changes it.
 */
export async function verifyDelivery(
  delivery: Delivery,
  secret: string,
  now: number,
  seen: RememberedDeliveries,
): Promise<Verdict> {
  const {body, headers} = delivery
  if (body.length === 0) return {accepted: false, status: 400, detail: 'The delivery has no body.'}
  const signature = headers[SIGNATURE_HEADER_NAME]
  if (typeof signature !== 'string')
    return {accepted: false, status: 400, detail: `The ${SIGNATURE_HEADER_NAME} header is missing or repeated.`}
  const idempotencyKey = headers['idempotency-key']
  if (
    Array.isArray(idempotencyKey) ||
    (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)
  ) {
    return {
      accepted: false,
      status: 400,
      detail: `The idempotency-key header must be one value of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
    }
  }
  try {
    await assertValidSignature(body.toString('utf8'), signature, secret)
  } catch (error) {
    if (!isSignatureError(error)) throw error
    return {
      accepted: false,
      status: 400,
      detail: `The ${SIGNATURE_HEADER_NAME} header does not sign this body with the configured secret (${error.message}).`,
    }
  }
  const {timestamp, hashedPayload} = decodeSignatureHeader(signature)
  if (Math.abs(now - timestamp) > MAX_AGE_MS)
    return {
      accepted: false,
      status: 400,
      detail: 'The delivery was signed more than 5 minutes from now; it may be a replay.',
    }

  // From here on nothing awaits, so two copies of one delivery cannot both pass the check.
  seen.forgetExpired(now)
  // A signature names one body at one instant: seen twice, it is a replay, whatever key it carries.
  const signatureKey = `signature ${timestamp} ${hashedPayload}`
  const deliveryKey = idempotencyKey === undefined ? undefined : `key ${idempotencyKey}`
  if (seen.has(signatureKey) || (deliveryKey !== undefined && seen.has(deliveryKey))) {
    return {
      accepted: false,
      status: 409,
      detail: 'This delivery was already received (same signature or idempotency-key); it changes nothing.',
    }
  }
  seen.remember(signatureKey, now)
  if (deliveryKey !== undefined) seen.remember(deliveryKey, now)
  return {
    accepted: true,
    change: changeOf(body),
    remembered: deliveryKey === undefined ? [signatureKey] : [signatureKey, deliveryKey],
  }
}

function changeOf(body: Buffer): ContentChange | 'ignored' {
  let json: unknown
  try {
    json = JSON.parse(body.toString('utf8'))
  } catch {
    return 'all'
  }
  const payload = payloadSchema.safeParse(json)
  if (!payload.success) return 'all'
  // The podcast's settings shape every feed item and the channel: a full re-read.
  if (isPodcastSettingsChange(payload.data._id, payload.data._type)) return 'all'
  // Drafts are never served, and types outside the catalog cannot change it.
  return documentChangeOf(payload.data._id, payload.data._type) ?? 'ignored'
}
