// `catalog_request_bodies_in_flight` as a scrape over loopback reads it: the body gate's own count, through
// createMetrics over a store built from the sample dataset.
import {EventEmitter} from 'node:events'
import {createServer} from 'node:http'
import {expect, it} from 'vitest'
import {z} from 'zod'
import {createCatalogBuilder} from '../../server/catalog-builder.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {bodyGate} from '../../server/http/connection-guard.ts'
import {createMetrics} from '../../server/observability/metrics.ts'
import {createSnapshotStore} from '../../server/snapshot/store.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

it('reports the bodies the gate holds, and 0 once they are answered', async () => {
  const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})
  const clock = () => new Date()
  const store = await createSnapshotStore(
    createCatalogBuilder({source: createEmbeddedFileSource(SAMPLE_DATASET), config, clock}).build,
  )
  const bodies = bodyGate(256)
  const metrics = createMetrics({store, clock, requestBodiesInFlight: bodies.inFlight})
  const server = createServer((request, response) => void metrics.send(request, response))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = z.object({port: z.number()}).parse(server.address())
  const scrape = async () =>
    /^catalog_request_bodies_in_flight (\d+)$/m.exec(
      await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(),
    )?.[1]
  const answers = [fakeResponse().response, fakeResponse().response]
  for (const response of answers)
    expect(
      bodies.admit(
        Object.assign(fakeRequest('POST', '/mcp', {'content-length': '9'}), {socket: new EventEmitter()}),
        response,
      ),
    ).toBe(true)
  expect(await scrape()).toBe('2')
  for (const response of answers) response.end()
  expect(await scrape()).toBe('0')
  store.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
