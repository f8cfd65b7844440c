// Webhook verification on its own: deliveries signed with @sanity/webhook as Sanity signs them,
// a `now` the test chooses, and a remembered set the test holds. No server, no clock.
import {encodeSignatureHeader} from '@sanity/webhook'
import {describe, expect, it} from 'vitest'
import {MAX_AGE_MS, RememberedDeliveries, verifyDelivery, type Delivery} from '../../server/webhooks/verify-delivery.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const NOW = Date.parse('2026-11-23T12:00:00Z')
const EPISODE = {_id: 'episode-1', _type: 'episode'}

async function signed(
  payload: unknown,
  options: {at?: number; secret?: string; key?: string | string[]} = {},
): Promise<Delivery> {
  const body = JSON.stringify(payload)
  const headers: Record<string, string | string[]> = {
    'sanity-webhook-signature': await encodeSignatureHeader(body, options.at ?? NOW, options.secret ?? SECRET),
  }
  if (options.key !== undefined) headers['idempotency-key'] = options.key
  return {body: Buffer.from(body), headers}
}

const accepted = {accepted: true, change: {documentId: 'episode-1', collection: 'episodes'}}
const stale = {accepted: false, status: 400, detail: expect.stringMatching(/signed more than 5 minutes from now/)}
const replay = {accepted: false, status: 409, detail: expect.stringMatching(/already received/)}

describe('the time window', () => {
  it.each([
    ['just inside, in the past', -MAX_AGE_MS, true],
    ['just outside, in the past', -MAX_AGE_MS - 1, false],
    ['just inside, in the future', MAX_AGE_MS, true],
    ['just outside, in the future', MAX_AGE_MS + 1, false],
    ['a day old', -86_400_000, false],
  ])('%s', async (_name, offset, inside) => {
    const verdict = await verifyDelivery(
      await signed(EPISODE, {at: NOW + offset}),
      SECRET,
      NOW,
      new RememberedDeliveries(),
    )
    expect(verdict).toMatchObject(inside ? accepted : stale)
  })

  it('remembers nothing it refused as stale, so a fresh copy is still accepted', async () => {
    const seen = new RememberedDeliveries()
    await verifyDelivery(await signed(EPISODE, {at: NOW - MAX_AGE_MS - 1, key: 'k'}), SECRET, NOW, seen)
    expect(seen.size).toBe(0)
    expect(await verifyDelivery(await signed(EPISODE, {key: 'k'}), SECRET, NOW, seen)).toMatchObject(accepted)
  })
})

describe('replays', () => {
  it('refuses the same signature again whatever idempotency-key it carries, or none', async () => {
    const seen = new RememberedDeliveries()
    const first = await signed(EPISODE, {key: 'delivery-1'})
    expect(await verifyDelivery(first, SECRET, NOW, seen)).toMatchObject(accepted)
    for (const key of [undefined, 'delivery-1', 'delivery-2']) {
      const headers = {...first.headers, 'idempotency-key': key}
      expect(await verifyDelivery({body: first.body, headers}, SECRET, NOW + 1000, seen), String(key)).toEqual(replay)
    }
  })

  it('refuses a key seen before on a newly signed delivery, and accepts a new signature with a new key', async () => {
    const seen = new RememberedDeliveries()
    expect(await verifyDelivery(await signed(EPISODE, {key: 'delivery-1'}), SECRET, NOW, seen)).toMatchObject(accepted)
    expect(await verifyDelivery(await signed(EPISODE, {at: NOW + 1, key: 'delivery-1'}), SECRET, NOW, seen)).toEqual(
      replay,
    )
    expect(
      await verifyDelivery(await signed(EPISODE, {at: NOW + 2, key: 'delivery-2'}), SECRET, NOW, seen),
    ).toMatchObject(accepted)
    expect(await verifyDelivery(await signed(EPISODE, {at: NOW + 3}), SECRET, NOW, seen)).toMatchObject(accepted)
  })

  it('remembers a delivery for twice the window, then forgets it (it would be stale by then anyway)', async () => {
    const seen = new RememberedDeliveries()
    await verifyDelivery(await signed(EPISODE, {key: 'old'}), SECRET, NOW, seen)
    expect(seen.size).toBe(2)
    expect(
      await verifyDelivery(
        await signed(EPISODE, {at: NOW + MAX_AGE_MS * 2 - 1, key: 'old'}),
        SECRET,
        NOW + MAX_AGE_MS * 2 - 1,
        seen,
      ),
    ).toEqual(replay)
    expect(
      await verifyDelivery(
        await signed(EPISODE, {at: NOW + MAX_AGE_MS * 2, key: 'old'}),
        SECRET,
        NOW + MAX_AGE_MS * 2,
        seen,
      ),
    ).toMatchObject(accepted)
    expect(seen.size, 'the expired entries are gone, the new two remembered').toBe(2)
  })
})

describe('headers', () => {
  it('refuses a missing or repeated signature, and a repeated idempotency-key', async () => {
    const delivery = await signed(EPISODE)
    const signature = String(delivery.headers['sanity-webhook-signature'])
    const verdict = (headers: Delivery['headers']) =>
      verifyDelivery({body: delivery.body, headers}, SECRET, NOW, new RememberedDeliveries())
    expect(await verdict({})).toEqual({
      accepted: false,
      status: 400,
      detail: 'The sanity-webhook-signature header is missing or repeated.',
    })
    expect(await verdict({'sanity-webhook-signature': [signature, signature]})).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/missing or repeated/),
    })
    expect(await verdict({'sanity-webhook-signature': signature, 'idempotency-key': ['a', 'b']})).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/idempotency-key header must be one value/),
    })
  })

  it('takes an idempotency-key of 256 characters and refuses one of 257', async () => {
    const seen = new RememberedDeliveries()
    expect(await verifyDelivery(await signed(EPISODE, {key: 'k'.repeat(256)}), SECRET, NOW, seen)).toMatchObject(
      accepted,
    )
    expect(await verifyDelivery(await signed(EPISODE, {at: NOW + 1, key: 'k'.repeat(257)}), SECRET, NOW, seen)).toEqual(
      {
        accepted: false,
        status: 400,
        detail: 'The idempotency-key header must be one value of at most 256 characters.',
      },
    )
  })

  it('refuses another secret, a changed body and an empty body, and remembers none of them', async () => {
    const seen = new RememberedDeliveries()
    expect(
      await verifyDelivery(await signed(EPISODE, {secret: 'another-secret-of-some-length'}), SECRET, NOW, seen),
    ).toMatchObject({
      status: 400,
      detail: expect.stringMatching(/does not sign this body/),
    })
    const delivery = await signed(EPISODE)
    expect(
      await verifyDelivery(
        {...delivery, body: Buffer.from(JSON.stringify({...EPISODE, _id: 'episode-2'}))},
        SECRET,
        NOW,
        seen,
      ),
    ).toMatchObject({status: 400})
    expect(await verifyDelivery({...delivery, body: Buffer.alloc(0)}, SECRET, NOW, seen)).toEqual({
      accepted: false,
      status: 400,
      detail: 'The delivery has no body.',
    })
    expect(seen.size).toBe(0)
  })
})

describe('what an accepted delivery asks for', () => {
  it.each([
    [EPISODE, accepted.change],
    [
      {_id: 'voice-1', _type: 'voice'},
      {documentId: 'voice-1', collection: 'voices'},
    ],
    [{_id: 'drafts.episode-1', _type: 'episode'}, 'ignored'],
    [{_id: 'x', _type: '__proto__'}, 'ignored'],
    [{hello: 'world'}, 'all'],
    ['not an object', 'all'],
  ])('%j: %j', async (payload, change) => {
    expect(await verifyDelivery(await signed(payload), SECRET, NOW, new RememberedDeliveries())).toMatchObject({
      accepted: true,
      change,
    })
  })
})

describe('the remembered set', () => {
  it('holds at most its bound, forgetting the oldest first', () => {
    const seen = new RememberedDeliveries(3)
    for (const key of ['a', 'b', 'c', 'd']) seen.remember(key, NOW)
    expect(seen.size).toBe(3)
    expect(['a', 'b', 'c', 'd'].map((key) => seen.has(key))).toEqual([false, true, true, true])
  })

  it('is bounded at 10,000 by default, and a replay of an accepted delivery is refused until it is pushed out', async () => {
    const seen = new RememberedDeliveries()
    const first = await signed(EPISODE)
    expect(await verifyDelivery(first, SECRET, NOW, seen)).toMatchObject(accepted)
    for (let index = 1; index < 10_000; index++) seen.remember(`filler ${index}`, NOW)
    expect(seen.size).toBe(10_000)
    expect(await verifyDelivery(first, SECRET, NOW, seen)).toEqual(replay)
    seen.remember('one more', NOW)
    expect(seen.size).toBe(10_000)
    expect(await verifyDelivery(first, SECRET, NOW, seen), 'the oldest, forgotten at the bound').toMatchObject(accepted)
  })
})

describe('payloads that name no single document', () => {
  it('asks for everything when the body is not JSON', async () => {
    const body = 'not json {'
    const delivery = {
      body: Buffer.from(body),
      headers: {'sanity-webhook-signature': await encodeSignatureHeader(body, NOW, SECRET)},
    }
    expect(await verifyDelivery(delivery, SECRET, NOW, new RememberedDeliveries())).toMatchObject({
      accepted: true,
      change: 'all',
    })
  })

  it('asks for everything on a change to the published podcast settings, and nothing on their draft', async () => {
    const verdict = async (payload: unknown) =>
      verifyDelivery(await signed(payload), SECRET, NOW, new RememberedDeliveries())
    expect(await verdict({_id: 'podcastSettings', _type: 'podcastSettings'})).toMatchObject({
      accepted: true,
      change: 'all',
    })
    expect(await verdict({_id: 'drafts.podcastSettings', _type: 'podcastSettings'})).toMatchObject({
      accepted: true,
      change: 'ignored',
    })
  })
})
