// The webhook endpoint as Express mounts it, on a loopback port: what a delivery is answered, and
// what it asks the store to rebuild. Signatures are made as Sanity makes them.
import type {Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {encodeSignatureHeader} from '@sanity/webhook'
import express from 'express'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ContentChange} from '../../server/content/content-change.ts'
import {createSanityWebhookHandlers, WEBHOOK_PATH} from '../../server/webhooks/sanity-webhook.ts'

const SECRET = 'a-webhook-secret-of-some-length'
const NOW = Date.parse('2026-11-23T12:00:00Z')
const changes: ContentChange[] = []
/** What onChange answers: false plays a purge queue whose disk refused the write. */
let recorded = true
let server: Server
let url: string

beforeAll(async () => {
  const app = express()
  app.post(
    WEBHOOK_PATH,
    ...createSanityWebhookHandlers({
      secret: SECRET,
      publicBaseUrl: 'http://api.test',
      clock: () => new Date(NOW),
      onChange: (change) => (changes.push(change), recorded),
    }),
  )
  server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${WEBHOOK_PATH}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

async function deliver(payload: unknown, options: {at?: number; contentType?: string; signature?: string} = {}) {
  const body = JSON.stringify(payload)
  const signature = options.signature ?? (await encodeSignatureHeader(body, options.at ?? NOW, SECRET))
  const before = changes.length
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: {'content-type': options.contentType ?? 'application/json', 'sanity-webhook-signature': signature},
  })
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after'),
    cacheControl: response.headers.get('cache-control'),
    body: await response.json(),
    changes: changes.slice(before),
  }
}

describe('the Sanity webhook endpoint', () => {
  it('is mounted at /webhooks/sanity', () => {
    expect(WEBHOOK_PATH).toBe('/webhooks/sanity')
  })

  it('answers 202 to a change to one document and asks for that document, whatever the content type', async () => {
    const answer = await deliver({_id: 'episode-1', _type: 'episode'}, {contentType: 'text/plain'})
    expect(answer).toMatchObject({
      status: 202,
      cacheControl: 'no-store',
      body: {status: 'accepted', rebuild: 'document'},
    })
    expect(answer.type).toMatch(/^application\/json/)
    expect(answer.changes).toEqual([{documentId: 'episode-1', collection: 'episodes'}])
  })

  it('asks for a full rebuild when the payload does not say which document changed', async () => {
    const answer = await deliver({hello: 'world'}, {at: NOW + 1})
    expect(answer).toMatchObject({status: 202, body: {status: 'accepted', rebuild: 'full'}})
    expect(answer.changes).toEqual(['all'])
  })

  it('accepts a draft and asks for nothing', async () => {
    const answer = await deliver({_id: 'drafts.episode-1', _type: 'episode'}, {at: NOW + 2})
    expect(answer).toMatchObject({status: 202, body: {status: 'accepted', rebuild: 'none'}})
    expect(answer.changes).toEqual([])
  })

  it('refuses a replay with a 409 problem and a bad signature with a 400 problem, and asks for nothing', async () => {
    const payload = {_id: 'voice-1', _type: 'voice'}
    expect((await deliver(payload, {at: NOW + 3})).status).toBe(202)
    const replay = await deliver(payload, {at: NOW + 3})
    expect(replay).toMatchObject({
      status: 409,
      cacheControl: 'no-store',
      type: 'application/problem+json; charset=utf-8',
    })
    expect(replay.body).toMatchObject({
      type: 'http://api.test/docs#errors-conflict',
      status: 409,
      instance: WEBHOOK_PATH,
    })
    expect(replay.changes).toEqual([])
    const forged = await deliver(payload, {signature: 't=1,v1=bm90LWEtc2lnbmF0dXJl'})
    expect(forged).toMatchObject({
      status: 400,
      body: {status: 400, detail: expect.stringMatching(/sanity-webhook-signature/)},
    })
    expect(forged.changes).toEqual([])
  })

  it('refuses a delivery without a body', async () => {
    const response = await fetch(url, {method: 'POST'})
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({status: 400, detail: 'The delivery has no body.'})
  })

  it('refuses a body over 64 KB before verifying it', async () => {
    const response = await fetch(url, {
      method: 'POST',
      body: 'x'.repeat(64 * 1024 + 1),
      headers: {'content-type': 'application/json'},
    })
    expect(response.status).toBe(413)
  })

  it('answers 503 with Retry-After when the change could not be recorded, and accepts the same delivery sent again', async () => {
    const payload = {_id: 'voice-2', _type: 'voice'}
    recorded = false
    try {
      const refused = await deliver(payload, {at: NOW + 4})
      expect(refused).toMatchObject({
        status: 503,
        retryAfter: '30',
        type: 'application/problem+json; charset=utf-8',
        body: {status: 503, instance: WEBHOOK_PATH},
      })
      expect(refused.changes).toEqual([{documentId: 'voice-2', collection: 'voices'}])
    } finally {
      recorded = true
    }
    const again = await deliver(payload, {at: NOW + 4})
    expect(again).toMatchObject({status: 202, body: {status: 'accepted', rebuild: 'document'}})
  })

  it('tells the sender of a change it could not record to deliver it again', async () => {
    recorded = false
    try {
      const refused = await deliver({_id: 'voice-3', _type: 'voice'}, {at: NOW + 5})
      expect(refused.status).toBe(503)
      expect(refused.body).toMatchObject({
        detail: expect.stringMatching(/could not be recorded on disk.*deliver it again/),
      })
    } finally {
      recorded = true
    }
  })
})
