// `npm run webhook:send -- DOCUMENT_ID [--type TYPE] [--deleted] [--url URL]`: signs and posts a
// delivery as Sanity's webhook does (the `{_id, _type}` projection, signed with
// SANITY_WEBHOOK_SECRET by @sanity/webhook), to test the route or replay a lost delivery.
import {randomUUID} from 'node:crypto'
import {parseArgs} from 'node:util'
import {encodeSignatureHeader, SIGNATURE_HEADER_NAME} from '@sanity/webhook'
import {loadConfig} from './config.ts'
import {WEBHOOK_PATH} from './webhooks/sanity-webhook.ts'
import {errorMessage} from './errors.ts'

const USAGE =
  'usage: npm run webhook:send -- DOCUMENT_ID [--type episode|meetup|voice|podcastSettings] [--deleted] [--url URL]'

try {
  const {values, positionals} = parseArgs({
    allowPositionals: true,
    options: {type: {type: 'string'}, deleted: {type: 'boolean', default: false}, url: {type: 'string'}},
  })
  const [documentId, ...extra] = positionals
  if (!documentId || extra.length > 0) throw new Error(USAGE)
  const config = loadConfig(process.env)
  if (!config.webhookSecret) throw new Error('set SANITY_WEBHOOK_SECRET (the secret the server verifies with)')
  // Without a type the server cannot tell which projection to read, so it re-reads everything.
  const body = JSON.stringify(values.type ? {_id: documentId, _type: values.type} : {_id: documentId})
  const signature = await encodeSignatureHeader(body, Date.now(), config.webhookSecret)
  const url = values.url ?? `http://localhost:${config.port}${WEBHOOK_PATH}`
  const response = await fetch(url, {
    method: 'POST',
    // The headers Sanity sends besides the signature; the server reads only the signature and the idempotency key.
    headers: {
      'content-type': 'application/json',
      [SIGNATURE_HEADER_NAME]: signature,
      'idempotency-key': randomUUID(),
      'sanity-operation': values.deleted ? 'delete' : 'update',
      'sanity-document-id': documentId,
    },
    body,
    signal: AbortSignal.timeout(30_000),
  })
  process.stdout.write(
    `POST ${url}\n${SIGNATURE_HEADER_NAME}: ${signature}\n${body}\n→ ${response.status} ${await response.text()}\n`,
  )
  if (!response.ok) process.exitCode = 1
} catch (error) {
  process.stderr.write(`webhook:send: ${errorMessage(error)}\n`)
  process.exitCode = 1
}
