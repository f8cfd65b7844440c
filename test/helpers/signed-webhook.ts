import {encodeSignatureHeader} from '@sanity/webhook'

/** POSTs a webhook naming `payload` to the server at `baseUrl`, signed with `secret` and keyed as Sanity sends one. */
export async function sendSignedWebhook(
  baseUrl: string,
  secret: string,
  payload: {_id: string; _type: string},
): Promise<Response> {
  const body = JSON.stringify(payload)
  return fetch(`${baseUrl}/webhooks/sanity`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'sanity-webhook-signature': await encodeSignatureHeader(body, Date.now(), secret),
      'idempotency-key': crypto.randomUUID(),
    },
    body,
  })
}
