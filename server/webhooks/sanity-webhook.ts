import express, {type RequestHandler} from 'express'
import {buildProblem, sendProblem} from '../http/problem.ts'
import type {ContentChange} from '../content/content-change.ts'
import {RememberedDeliveries, verifyDelivery, type Verdict} from './verify-delivery.ts'
import type {Clock} from '../clock.ts'

export const WEBHOOK_PATH = '/webhooks/sanity'

export interface WebhookOptions {
  secret: string
  publicBaseUrl: string
  clock: Clock
  /**
   * Called before the delivery is answered: a change to one document, or `all` when the payload
   * does not say which. `false` means the change could not be recorded durably (the purge queue's
   * disk refused it): the delivery is answered 503, so Sanity sends it again.
   */
  onChange: (change: ContentChange) => unknown
}

/** How soon Sanity is asked to deliver again a change that could not be recorded. */
const RETRY_AFTER_SECONDS = 30

const NO_BODY: Verdict = {accepted: false, status: 400, detail: 'The delivery has no body.'}

/**
 * Receives GROQ-powered Sanity webhooks. A delivery is a hint to rebuild, never content: it is
 * verified on the raw body (`verifyDelivery`: HMAC signature, at most 5 minutes old, not seen
 * before), recorded, answered at once with 202, and the rebuild reads the content from the source
 * itself. A change that could not be recorded is answered 503 with Retry-After and forgotten as
 * seen, so its redelivery is accepted.
 * A refused delivery changes nothing and gets a 400 or 409 problem (never 401/403: clients are
 * promised none).
 */
export function createSanityWebhookHandlers(options: WebhookOptions): RequestHandler[] {
  const seen = new RememberedDeliveries()

  const receive: RequestHandler = async (request, response) => {
    const body: unknown = request.body
    const verdict = Buffer.isBuffer(body)
      ? await verifyDelivery({body, headers: request.headers}, options.secret, options.clock().getTime(), seen)
      : NO_BODY
    if (!verdict.accepted) {
      sendProblem(
        request,
        response,
        buildProblem(options.publicBaseUrl, verdict.status, verdict.detail, request.originalUrl),
      )
      return
    }
    const rebuild = verdict.change === 'ignored' ? 'none' : verdict.change === 'all' ? 'full' : 'document'
    if (verdict.change !== 'ignored' && options.onChange(verdict.change) === false) {
      seen.forget(verdict.remembered)
      const detail =
        'The change could not be recorded on disk (see /status); it is being applied, but deliver it again so it is not lost.'
      sendProblem(request, response, buildProblem(options.publicBaseUrl, 503, detail, request.originalUrl), {
        'Retry-After': String(RETRY_AFTER_SECONDS),
      })
      return
    }
    response.status(202).set('Cache-Control', 'no-store').json({status: 'accepted', rebuild})
  }

  return [express.raw({type: () => true, limit: '64kb'}), receive]
}
