// The purge adapters against a stand-in CDN API on loopback whose answers are 200 MB long
// (streamed, never held by the test) or never come: each call ends having read a few KB (the
// stand-in counts what it sent before the connection dropped), or at its own deadline. Not timed:
// reading the whole answer shows in the bytes sent and in the failure's message.
import {createServer, type Server, type ServerResponse} from 'node:http'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {cloudflareAdapter} from '../../server/edge/cloudflare-adapter.ts'
import {fastlyAdapter} from '../../server/edge/fastly-adapter.ts'
import {type PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {varnishAdapter} from '../../server/edge/varnish-adapter.ts'
import {answerHugely, type HugeAnswer} from '../helpers/huge-answer.ts'
import {PurgeFailure} from '../../server/errors.ts'

const MB = 1024 * 1024
// How long the stand-in waits to see its connection dropped: only a client that never drops it runs this long.
const LIVENESS_MS = 20_000

let standIn: Server
let baseUrl: string
let answered: HugeAnswer[]
/** How the stand-in answers: a status with 200 MB of body, or nothing at all. */
let answer: {status: number} | 'never'

beforeEach(async () => {
  answered = []
  standIn = createServer((request, response: ServerResponse) => {
    request.resume()
    if (answer === 'never') return
    answered.push(answerHugely(response, answer.status, 'application/json'))
  })
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve))
  const address = standIn.address()
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address')
  baseUrl = `http://127.0.0.1:${address.port}`
})
afterEach(async () => {
  standIn.closeAllConnections()
  await new Promise((resolve) => standIn.close(resolve))
})

/** How the purge ended. */
const outcomeOf = (adapter: PurgeAdapter): Promise<unknown> =>
  adapter.purge(['episodes/ep-1']).then(
    () => 'purged',
    (error: unknown) => error,
  )

const adapters = () => ({
  varnish: varnishAdapter({urls: [`${baseUrl}/`], token: 'a-token'}),
  fastly: fastlyAdapter({apiUrl: baseUrl, token: 'a-token', serviceId: 'abc', softPurge: false}),
  cloudflare: cloudflareAdapter({apiUrl: baseUrl, token: 'a-token', zoneId: 'zone'}),
})

it.each(['varnish', 'fastly', 'cloudflare'] as const)(
  '%s: a 500 with a 200 MB body fails, read up to a few KB',
  {timeout: 60_000},
  async (name) => {
    answer = {status: 500}
    const outcome = await outcomeOf(adapters()[name])
    expect(outcome).toBeInstanceOf(PurgeFailure)
    expect(
      outcome instanceof PurgeFailure && outcome.message.length < 400 && outcome.message.includes('HTTP 500'),
    ).toBe(true)
    await expect.poll(() => answered[0]?.closed, {timeout: LIVENESS_MS}).toBe(true)
    expect(answered[0]?.sent).toBeLessThan(50 * MB)
  },
)

it(
  'a 200 with a 200 MB body: Varnish is purged, a Cloudflare answer that is not its envelope fails, and neither is read whole',
  {timeout: 60_000},
  async () => {
    answer = {status: 200}
    for (const [name, expected] of [
      ['varnish', 'purged'],
      ['cloudflare', 'the answer was not the API envelope'],
    ] as const) {
      const outcome = await outcomeOf(adapters()[name])
      expect(outcome instanceof PurgeFailure ? outcome.message : outcome).toContain(expected)
    }
    await expect
      .poll(() => answered.length === 2 && answered.every((record) => record.closed), {timeout: LIVENESS_MS})
      .toBe(true)
    for (const record of answered) expect(record.sent).toBeLessThan(50 * MB)
  },
)

it('an API that never answers fails at the deadline, as a failure worth retrying', async () => {
  answer = 'never'
  const failure = await varnishAdapter({urls: [`${baseUrl}/`], token: 'a-token', timeoutMs: 300})
    .purge(['episodes/ep-1'])
    .catch((error: unknown) => error)
  expect(failure).toBeInstanceOf(PurgeFailure)
  expect(failure instanceof PurgeFailure && !failure.permanent).toBe(true)
  // Given up by its own 300 ms deadline (a call without one never ends: the test's timeout).
  expect(failure instanceof PurgeFailure ? failure.message : failure).toMatch(/within 300 ms/)
})
