import {encodeSignatureHeader} from '@sanity/webhook'

/** A webhook body and the `sanity-webhook-signature` header Sanity would send with it. */
export interface SignedDelivery {
  body: string
  signature: string
}

/** Signs `payload` as Sanity signs a webhook; `timestamp` (ms) dates the signature, now unless given. */
export async function signWebhook(payload: unknown, secret: string, timestamp = Date.now()): Promise<SignedDelivery> {
  const body = JSON.stringify(payload)
  return {body, signature: await encodeSignatureHeader(body, timestamp, secret)}
}

/** POSTs a signed delivery as it is, to redeliver it; a fresh idempotency key unless one is given, and none for null. */
export function postWebhook(
  baseUrl: string,
  delivery: SignedDelivery,
  idempotencyKey: string | null = crypto.randomUUID(),
): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'sanity-webhook-signature': delivery.signature,
  }
  if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey
  return fetch(`${baseUrl}/webhooks/sanity`, {method: 'POST', headers, body: delivery.body})
}

export interface WebhookOptions {
  /** When the signature says it was made (ms); now unless given. */
  timestamp?: number
  /** The `idempotency-key` header: a fresh one unless given, none for null. */
  idempotencyKey?: string | null
}

/** POSTs a webhook naming `payload` to the server at `baseUrl`, signed with `secret` and keyed as Sanity sends one. */
export async function sendSignedWebhook(
  baseUrl: string,
  secret: string,
  payload: unknown,
  options: WebhookOptions = {},
): Promise<Response> {
  return postWebhook(baseUrl, await signWebhook(payload, secret, options.timestamp), options.idempotencyKey)
}
