// What an accepted verdict names (the keys it was remembered under, so the caller can forget a
// delivery it could not record), and an environment that cannot check signatures at all.
// Deliveries signed with @sanity/webhook, a `now` the test chooses, no server.
import {encodeSignatureHeader} from '@sanity/webhook'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {RememberedDeliveries, verifyDelivery, type Delivery} from '../../server/webhooks/verify-delivery.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const NOW = Date.parse('2026-11-23T12:00:00Z')

async function signed(key?: string): Promise<Delivery> {
  const body = JSON.stringify({_id: 'episode-1', _type: 'episode'})
  const headers: Record<string, string> = {
    'sanity-webhook-signature': await encodeSignatureHeader(body, NOW, SECRET),
  }
  if (key !== undefined) headers['idempotency-key'] = key
  return {body: Buffer.from(body), headers}
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('an accepted verdict', () => {
  it('names the signature alone when the delivery has no idempotency-key', async () => {
    const seen = new RememberedDeliveries()
    const verdict = await verifyDelivery(await signed(), SECRET, NOW, seen)
    expect(verdict).toMatchObject({accepted: true, remembered: [expect.stringMatching(/^signature /)]})
    expect(verdict.accepted && verdict.remembered).toHaveLength(1)
  })

  it('names the signature and the key, and forgetting them lets the same delivery in again', async () => {
    const seen = new RememberedDeliveries()
    const delivery = await signed('delivery-1')
    const verdict = await verifyDelivery(delivery, SECRET, NOW, seen)
    expect(verdict).toMatchObject({
      accepted: true,
      remembered: [expect.stringMatching(/^signature /), 'key delivery-1'],
    })
    if (!verdict.accepted) throw new Error('refused')
    expect(verdict.remembered).toHaveLength(2)
    seen.forget(verdict.remembered)
    expect(seen.size).toBe(0)
    expect(await verifyDelivery(delivery, SECRET, NOW, seen)).toMatchObject({accepted: true})
  })
})

describe('an environment without Web Crypto', () => {
  it('throws, rather than call the delivery badly signed', async () => {
    const delivery = await signed()
    vi.stubGlobal('crypto', undefined)
    await expect(verifyDelivery(delivery, SECRET, NOW, new RememberedDeliveries())).rejects.toThrow(/Web Crypto/)
  })
})
