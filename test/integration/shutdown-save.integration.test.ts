// Integration: SIGTERM saves the newest snapshot even while a client holds the drain. `npm start`'s
// process with SNAPSHOT_DIR and a 3 s shutdown timeout; an idle keep-alive connection (as a proxy
// keeps one) holds the HTTP drain until the timeout; an edit served a moment before SIGTERM, before
// the saver's second. The next start must serve the edited title from its first answer.
import {rm} from 'node:fs/promises'
import {Agent, request} from 'node:http'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {copySampleDataset, retitleEpisode} from '../helpers/dataset-file.ts'
import {eventually} from '../../support/eventually.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'

let directory: string
let datasetFile: string
let origin: MainProcess | undefined
const start = () =>
  startMainProcess({
    PORT: '0',
    DATASET_FILE: datasetFile,
    SNAPSHOT_DIR: join(directory, 'snapshots'),
    SHUTDOWN_TIMEOUT_SECONDS: '3',
    RECONCILE_INTERVAL_SECONDS: '0',
  })

beforeAll(async () => {
  ;({directory, datasetFile} = await copySampleDataset('catalog-shutdown-save-'))
  origin = await start()
}, 60_000)
afterAll(async () => {
  await origin?.stop()
  await rm(directory, {recursive: true, force: true})
})

const titleSchema = z.object({data: z.object({title: z.string()})})
const title = async (slug: string) =>
  titleSchema.parse(await (await fetch(`${origin?.baseUrl ?? ''}/api/v1/episodes/${slug}.json`)).json()).data.title

/** One GET on a keep-alive connection that then stays open and idle. */
async function holdIdleConnection(baseUrl: string): Promise<Agent> {
  const agent = new Agent({keepAlive: true, maxSockets: 1})
  await new Promise<void>((resolve, reject) => {
    request(`${baseUrl}/healthz`, {agent}, (response) => {
      response.resume()
      response.on('end', resolve)
    })
      .on('error', reject)
      .end()
  })
  return agent
}

describe('SIGTERM while a client holds the drain', () => {
  it('still saves the snapshot it served last', async () => {
    const slug = 'ep-1-why-we-started'
    const edited = 'פרק 1: נערך רגע לפני SIGTERM'
    const agent = await holdIdleConnection(origin?.baseUrl ?? '')
    await retitleEpisode(datasetFile, slug, edited)
    await eventually(async () => expect(await title(slug)).toBe(edited), 20_000)
    const stopping = origin
    expect(await stopping?.stop()).toBe(0)
    agent.destroy()
    // Saved within the shutdown, not left to the moments after the drain used up its timeout.
    const log = stopping?.output() ?? ''
    expect(log.lastIndexOf('saved the snapshot')).toBeGreaterThan(log.indexOf('rebuild of'))
    expect(log.lastIndexOf('saved the snapshot')).toBeLessThan(log.indexOf('stopped after SIGTERM'))

    origin = await start()
    expect(await title(slug)).toBe(edited)
  }, 60_000)
})
