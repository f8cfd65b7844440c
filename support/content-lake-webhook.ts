import {encodeSignatureHeader} from '@sanity/webhook'
import {evaluateSync, parse} from 'groq-js'
import {isPublishedId} from './published-perspective.ts'
import type {Committed} from './content-lake-dataset.ts'

/** A GROQ-powered webhook as it is set up in Sanity's manage pages (docs/content-and-webhooks.md: "Set it up in Sanity"). */
export interface WebhookSettings {
  url: string
  secret: string
  /** GROQ filter, e.g. `_type in ["episode", "meetup", "voice"]`. */
  filter: string
  /** GROQ projection of the delivery's body, e.g. `{_id, _type}`. */
  projection: string
}

export interface Delivery {
  documentId: string
  operation: 'create' | 'update' | 'delete'
  body: string
  /** The transaction's commit (performance.now()), and the receiver's status. */
  committedAt: number
  status: number
}

/**
 * Sends a webhook delivery for each published document a transaction created, updated or deleted
 * and the filter matches (drafts and versions off), with the projection as its body, signed by
 * @sanity/webhook and with the headers Sanity sends. A deleted document is projected as it was.
 */
export function createWebhookSender(settings: WebhookSettings, context: {projectId: string; dataset: string}) {
  const deliveries: Delivery[] = []
  const selection = parse(`*[${settings.filter}]${settings.projection}`)
  // Deliveries leave one at a time, in commit order.
  let queue = Promise.resolve()

  async function deliver(committed: Committed) {
    for (const {id, before, after} of committed.changes) {
      const document = after ?? before
      if (!isPublishedId(id) || !document) continue
      const [projected]: unknown[] = await evaluateSync(selection, {dataset: [document]}).get()
      if (projected === undefined) continue
      const body = JSON.stringify(projected)
      const operation = before === null ? 'create' : after === null ? 'delete' : 'update'
      const response = await fetch(settings.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'sanity-webhook-signature': await encodeSignatureHeader(body, Date.now(), settings.secret),
          'idempotency-key': `${committed.transactionId}#${id}`,
          'sanity-operation': operation,
          'sanity-document-id': id,
          'sanity-transaction-id': committed.transactionId,
          'sanity-transaction-time': committed.timestamp,
          'sanity-project-id': context.projectId,
          'sanity-dataset': context.dataset,
        },
        body,
      })
      await response.arrayBuffer()
      deliveries.push({documentId: id, operation, body, committedAt: committed.committedAt, status: response.status})
    }
  }

  return {
    deliveries,
    send(committed: Committed) {
      queue = queue
        .then(() => deliver(committed))
        .catch((error: unknown) => console.error('webhook delivery failed', error))
    },
  }
}
