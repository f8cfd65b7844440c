// Integration: a restart over a source that fails, with SNAPSHOT_DIR holding a snapshot saved by
// other code (an earlier deploy) under the same settings. Started through the composition root
// (startTestServer): the server does not exit; it serves the saved catalog as a fallback, answers
// /readyz 503 and says why in /status, retries the source with the store's backoff, and replaces
// the fallback in full once the source answers.
import {copyFile, mkdtemp, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import type {ContentSource} from '../../server/content/source.ts'
import {readProblem} from '../helpers/contract.ts'
import {eventually} from '../../support/eventually.ts'
import {asIfSavedByOtherCode} from '../helpers/saved-file.ts'
import {SAMPLE_DATASET, startTestServer} from '../../support/server.ts'

const EPISODE = '/api/v1/episodes/ep-1-why-we-started.json'

let folder: string
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-other-code-'))
})
afterAll(() => rm(folder, {recursive: true, force: true}))

const statusSchema = z.object({
  consecutive_failures: z.number(),
  saved_snapshot: z.object({written_by_other_code: z.boolean(), first_read: z.string().nullable()}),
})

describe('a restart over a failing source, with a snapshot saved by other code', () => {
  it('serves it, not ready, retrying the source, and replaces it once the source answers', async () => {
    const dataset = join(folder, 'catalog.ndjson')
    const directory = join(folder, 'saved')
    const environment = {DATASET_FILE: dataset, SNAPSHOT_DIR: directory}
    await copyFile(SAMPLE_DATASET, dataset)
    const first = await startTestServer({environment})
    const saved = await (await fetch(`${first.baseUrl}${EPISODE}`)).text()
    await eventually(async () => expect(await readdir(directory)).toContain('snapshot.ndjson'))
    await first.close()
    await asIfSavedByOtherCode(join(directory, 'snapshot.ndjson'))

    // The source answers 500 to every read until it is told otherwise.
    const good = createEmbeddedFileSource(dataset)
    let answering = false
    let reads = 0
    const source: ContentSource = {
      description: 'a Content Lake answering 500',
      fetch(query, params) {
        reads += 1
        return answering ? good.fetch(query, params) : Promise.reject(new Error('the Content Lake answered 500'))
      },
    }
    const restarted = await startTestServer({environment, source, store: {retryDelayMs: 50, maxRetryDelayMs: 200}})
    try {
      expect(await (await fetch(`${restarted.baseUrl}${EPISODE}`)).text()).toBe(saved)
      await eventually(async () => expect(reads).toBeGreaterThanOrEqual(3)) // retried with backoff
      const readiness = await fetch(`${restarted.baseUrl}/readyz`)
      expect((await readProblem(readiness, 503)).detail).toMatch(/written by other code/)
      expect((await fetch(`${restarted.baseUrl}/healthz`)).status).toBe(200)
      const status = statusSchema.parse(await (await fetch(`${restarted.baseUrl}/status`)).json())
      expect(status.saved_snapshot).toEqual({written_by_other_code: true, first_read: 'failed'})
      expect(status.consecutive_failures).toBeGreaterThan(0)

      answering = true
      await eventually(async () => expect((await fetch(`${restarted.baseUrl}/readyz`)).status).toBe(200), 10_000)
      expect(statusSchema.parse(await (await fetch(`${restarted.baseUrl}/status`)).json())).toMatchObject({
        consecutive_failures: 0,
        saved_snapshot: {first_read: 'done'},
      })
      expect(await (await fetch(`${restarted.baseUrl}${EPISODE}`)).text()).toBe(saved)
    } finally {
      await restarted.close()
    }
  }, 60_000)
})
