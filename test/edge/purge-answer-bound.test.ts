// The purge adapters against a stand-in CDN API on loopback whose answers are 200 MB long
// (streamed, never held by the test) or never come: each call ends within seconds, having read a
// few KB, and the stand-in sees its connection dropped long before its body is sent.
import {createServer, type Server, type ServerResponse} from 'node:http'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {cloudflareAdapter} from '../../server/edge/cloudflare-adapter.ts'
import {fastlyAdapter} from '../../server/edge/fastly-adapter.ts'
import {PurgeFailure, type PurgeAdapter} from '../../server/edge/purge-adapter.ts'
import {varnishAdapter} from '../../server/edge/varnish-adapter.ts'
import {answerHugely, type HugeAnswer} from '../helpers/huge-answer.ts'

const MB = 1024 * 1024

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

/** How the purge ended, and how long it took. */
async function timed(adapter: PurgeAdapter): Promise<{outcome: unknown; ms: number}> {
  const startedAt = performance.now()
  const outcome = await adapter.purge(['episodes/ep-1']).then(
    () => 'purged',
    (error: unknown) => error,
  )
  return {outcome, ms: performance.now() - startedAt}
}

const adapters = () => ({
  varnish: varnishAdapter({urls: [`${baseUrl}/`], token: 'a-token'}),
  fastly: fastlyAdapter({apiUrl: baseUrl, token: 'a-token', serviceId: 'abc', softPurge: false}),
  cloudflare: cloudflareAdapter({apiUrl: baseUrl, token: 'a-token', zoneId: 'zone'}),
})

it.each(['varnish', 'fastly', 'cloudflare'] as const)(
  '%s: a 500 with a 200 MB body fails within seconds, read up to a few KB',
  async (name) => {
    answer = {status: 500}
    const {outcome, ms} = await timed(adapters()[name])
    expect(outcome).toBeInstanceOf(PurgeFailure)
    expect(
      outcome instanceof PurgeFailure && outcome.message.length < 400 && outcome.message.includes('HTTP 500'),
    ).toBe(true)
    expect(ms).toBeLessThan(5000)
    await expect.poll(() => answered[0]?.closed, {timeout: 5000}).toBe(true)
    expect(answered[0]?.sent).toBeLessThan(50 * MB)
  },
)

it('a 200 with a 200 MB body: Varnish is purged, a Cloudflare answer that is not its envelope fails, and neither is read whole', async () => {
  answer = {status: 200}
  for (const [name, expected] of [
    ['varnish', 'purged'],
    ['cloudflare', 'the answer was not the API envelope'],
  ] as const) {
    const {outcome, ms} = await timed(adapters()[name])
    expect(outcome instanceof PurgeFailure ? outcome.message : outcome).toContain(expected)
    expect(ms).toBeLessThan(5000)
  }
  await expect
    .poll(() => answered.length === 2 && answered.every((record) => record.closed), {timeout: 5000})
    .toBe(true)
  for (const record of answered) expect(record.sent).toBeLessThan(50 * MB)
})

it('an API that never answers fails at the deadline, as a failure worth retrying', async () => {
  answer = 'never'
  const startedAt = performance.now()
  const failure = await varnishAdapter({urls: [`${baseUrl}/`], token: 'a-token', timeoutMs: 300})
    .purge(['episodes/ep-1'])
    .catch((error: unknown) => error)
  expect(failure).toBeInstanceOf(PurgeFailure)
  expect(failure instanceof PurgeFailure && !failure.permanent).toBe(true)
  expect(performance.now() - startedAt).toBeLessThan(5000)
})
