// Integration: purges outlive restarts. The origin runs as `npm start` runs it (`server/main.ts`,
// its own process, the embedded dataset from a file it watches, SNAPSHOT_DIR for the purge queue)
// behind a real Varnish with the generated VCL; purges go through a relay the test can cut, so
// Varnish keeps its cache while it cannot be reached.
import {copyFile, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {retitleEpisode} from '../helpers/dataset-file.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {purgeRelay, type PurgeRelay} from '../helpers/purge-relay.ts'
import {rawRequest} from '../helpers/raw-http.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'
import {startVarnish, type RunningVarnish} from '../../support/varnish.ts'

const TOKEN = 'purge-token-for-the-restart-tests'
const statusSchema = z.object({
  edge: z.object({queue_depth: z.number(), purges_sent: z.number(), purges_failed: z.number()}),
})

let directory: string
let datasetFile: string
let originPort: number
let varnishPort: number
let relay: PurgeRelay
let varnish: RunningVarnish | undefined
let origin: MainProcess | undefined

const startOrigin = () =>
  startMainProcess({
    PORT: String(originPort),
    PUBLIC_BASE_URL: 'https://api.example',
    DATASET_FILE: datasetFile,
    SNAPSHOT_DIR: join(directory, 'snapshots'),
    CDN_PURGE: 'varnish',
    CDN_PURGE_URLS: `http://127.0.0.1:${relay.port}/`,
    CDN_PURGE_TOKEN: TOKEN,
  })
const startEdge = () => startVarnish({backends: [`127.0.0.1:${originPort}`], token: TOKEN, port: varnishPort})

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'catalog-edge-restarts-'))
  datasetFile = join(directory, 'catalog.ndjson')
  await copyFile(SAMPLE_DATASET, datasetFile)
  ;[originPort, varnishPort] = [await freePort(), await freePort()]
  relay = purgeRelay(await freePort(), () => varnishPort)
  await relay.open()
  origin = await startOrigin()
  varnish = await startEdge()
}, 60_000)
afterAll(async () => {
  await origin?.stop()
  await varnish?.stop()
  await relay?.close()
  await rm(directory, {recursive: true, force: true})
})

const edgeStatus = async () =>
  statusSchema.parse(await (await fetch(`http://127.0.0.1:${originPort}/status`)).json()).edge
const throughVarnish = async (path: string) => {
  const response = await rawRequest(`http://127.0.0.1:${varnishPort}${path}`)
  return {
    cache: response.headers['x-cache'],
    title: itemEnvelope(episodeSchema).parse(JSON.parse(response.body.toString('utf8'))).data.title,
  }
}
const retitle = (slug: string, title: string) => retitleEpisode(datasetFile, slug, title)
async function settled() {
  await eventually(async () => expect((await edgeStatus()).queue_depth).toBe(0), 15_000)
}
async function cached(path: string) {
  await throughVarnish(path)
  expect((await throughVarnish(path)).cache).toBe('HIT')
}

describe('purges and restarts', () => {
  it('a purge the origin could not send before it stopped is sent by the next process', async () => {
    const slug = 'ep-3-schema-migrations'
    const path = `/api/v1/episodes/${slug}.json`
    await settled()
    await cached(path)
    const before = (await throughVarnish(path)).title
    const {purges_failed: failedBefore} = await edgeStatus()
    await relay.close()
    const title = 'פרק 3: נערך בזמן שהמטמון לא עונה'
    await retitle(slug, title)
    await eventually(async () => expect((await edgeStatus()).purges_failed).toBeGreaterThan(failedBefore), 10_000)
    expect((await edgeStatus()).queue_depth).toBeGreaterThan(0)
    await origin?.stop()
    origin = undefined
    expect(await throughVarnish(path)).toEqual({cache: 'HIT', title: before}) // stale, and nobody to purge it

    await relay.open()
    origin = await startOrigin()
    await eventually(async () => expect((await throughVarnish(path)).title).toBe(title), 15_000)
    await settled()
  }, 60_000)

  it('a purge pending while Varnish restarts is retried until the new Varnish answers', async () => {
    const slug = 'ep-2-react-server-components'
    const path = `/api/v1/episodes/${slug}.json`
    await settled()
    await varnish?.stop()
    varnish = undefined
    const {purges_sent: sentBefore, purges_failed: failedBefore} = await edgeStatus()
    const title = 'פרק 2: נערך בזמן ש-Varnish הופעל מחדש'
    await retitle(slug, title)
    await eventually(async () => expect((await edgeStatus()).purges_failed).toBeGreaterThan(failedBefore), 10_000)
    varnish = await startEdge()
    await settled()
    expect((await edgeStatus()).purges_sent).toBeGreaterThan(sentBefore)
    expect((await throughVarnish(path)).title).toBe(title)
    await cached(path)
  }, 60_000)
})
