import {assertValidSignature, decodeSignatureHeader, isSignatureError, SIGNATURE_HEADER_NAME} from '@sanity/webhook'
import express, {type RequestHandler} from 'express'
import {z} from 'zod'
import {documentChangeOf, isPodcastSettingsChange} from '../snapshot/store.ts'
import {buildProblem, sendProblem} from '../http/problem.ts'
import type {ContentChange} from '../scaling/change-fan-out.ts'

export const WEBHOOK_PATH = '/webhooks/sanity'
const MAX_AGE_MS = 5 * 60 * 1000
// Only verified deliveries are remembered, so only a holder of the secret can fill this; at the
// bound the oldest is forgotten. Keys are cut to a length, so memory stays under a few MB.
const MAX_REMEMBERED_DELIVERIES = 10_000
const MAX_IDEMPOTENCY_KEY_LENGTH = 256

/** The projection the README asks for: `{_id, _type}`; anything else is still a valid hint to rebuild everything. */
const payloadSchema = z.looseObject({_id: z.string().min(1), _type: z.string().min(1)})

export interface WebhookOptions {
  secret: string
  publicBaseUrl: string
  clock: () => Date
  /** Called after the delivery has been answered: a change to one document, or `all` when the payload does not say which. */
  onChange: (change: ContentChange) => void
}

type Verdict = {accepted: false; status: 400 | 409; detail: string} | {accepted: true; change: ContentChange | 'ignored'}

/**
 * Receives GROQ-powered Sanity webhooks. A delivery is a hint to rebuild, never content: it is
 * verified on the raw body (HMAC signature, at most 5 minutes old, not seen before), answered at
 * once with 202, and the rebuild reads the content from the source itself. A refused delivery
 * changes nothing and gets a 400 or 409 problem (never 401/403: clients are promised none).
 */
export function createSanityWebhookHandlers(options: WebhookOptions): RequestHandler[] {
  // Signatures and idempotency keys already accepted -> when they stop mattering (a delivery
  // signed that long ago is refused as stale anyway). Insertion order is expiry order.
  const seen = new Map<string, number>()
  const forgetExpired = (now: number) => {
    for (const [key, expiresAt] of seen) {
      if (expiresAt > now) return
      seen.delete(key)
    }
  }
  const remember = (key: string, now: number) => {
    if (seen.size >= MAX_REMEMBERED_DELIVERIES) seen.delete(seen.keys().next().value ?? '')
    seen.set(key, now + 2 * MAX_AGE_MS)
  }

  const verify = async (body: Buffer, headers: Record<string, string | string[] | undefined>): Promise<Verdict> => {
    const signature = headers[SIGNATURE_HEADER_NAME]
    if (typeof signature !== 'string') return {accepted: false, status: 400, detail: `The ${SIGNATURE_HEADER_NAME} header is missing or repeated.`}
    const idempotencyKey = headers['idempotency-key']
    if (Array.isArray(idempotencyKey) || (idempotencyKey !== undefined && idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
      return {accepted: false, status: 400, detail: `The idempotency-key header must be one value of at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`}
    }
    try {
      await assertValidSignature(body.toString('utf8'), signature, options.secret)
    } catch (error) {
      if (!isSignatureError(error)) throw error
      return {accepted: false, status: 400, detail: `The ${SIGNATURE_HEADER_NAME} header does not sign this body with the configured secret (${error.message}).`}
    }
    const now = options.clock().getTime()
    const {timestamp, hashedPayload} = decodeSignatureHeader(signature)
    if (Math.abs(now - timestamp) > MAX_AGE_MS) return {accepted: false, status: 400, detail: 'The delivery was signed more than 5 minutes from now; it may be a replay.'}

    forgetExpired(now)
    // A signature names one body at one instant: seen twice, it is a replay, whatever key it carries.
    const signatureKey = `signature ${timestamp} ${hashedPayload}`
    const deliveryKey = idempotencyKey === undefined ? undefined : `key ${idempotencyKey}`
    if (seen.has(signatureKey) || (deliveryKey !== undefined && seen.has(deliveryKey))) {
      return {accepted: false, status: 409, detail: 'This delivery was already received (same signature or idempotency-key); it changes nothing.'}
    }
    remember(signatureKey, now)
    if (deliveryKey !== undefined) remember(deliveryKey, now)
    return {accepted: true, change: changeOf(body)}
  }

  const receive: RequestHandler = async (request, response) => {
    const body: unknown = request.body
    const verdict = Buffer.isBuffer(body) && body.length > 0 ? await verify(body, request.headers) : ({accepted: false, status: 400, detail: 'The delivery has no body.'} as const)
    if (!verdict.accepted) {
      return sendProblem(request, response, buildProblem(options.publicBaseUrl, verdict.status, verdict.detail, request.originalUrl))
    }
    const rebuild = verdict.change === 'ignored' ? 'none' : verdict.change === 'all' ? 'full' : 'document'
    response.status(202).set('Cache-Control', 'no-store').json({status: 'accepted', rebuild})
    if (verdict.change !== 'ignored') options.onChange(verdict.change)
  }

  return [express.raw({type: () => true, limit: '64kb'}), receive]
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
  if (isPodcastSettingsChange(payload.data._id, payload.data._type)) return 'all'
  // Drafts are never served, and types outside the catalog cannot change it.
  return documentChangeOf(payload.data._id, payload.data._type) ?? 'ignored'
}
