// Integration: runs `server/main.ts` as its own process (as `npm start` does) with a copy of the
// sample dataset in a temporary folder, and edits that file the way a developer would.
import {copyFile, mkdtemp, readFile, rename, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {episodeSchema, itemEnvelope} from '../../catalog/v1/contract.ts'
import {eventually} from '../../support/eventually.ts'
import {freePort} from '../../support/free-port.ts'
import {readContract} from '../helpers/contract.ts'
import {runMainToExit, startMainProcess, type MainProcess} from '../helpers/main-process.ts'
import {sampleCounts} from '../helpers/sample.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

let folder: string
let datasetFile: string
let server: MainProcess
let baseUrl: string
const output = () => server.output()

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'catalog-main-'))
  datasetFile = join(folder, 'catalog.ndjson')
  await copyFile(SAMPLE_DATASET, datasetFile)
  // No reconcile timer: an edit must be picked up by the file watcher alone.
  server = await startMainProcess({PORT: '0', DATASET_FILE: datasetFile, RECONCILE_INTERVAL_SECONDS: '0'})
  baseUrl = server.baseUrl
}, 60_000) // a start, not a measure of it: vitest's 10 s default was passed at a load of 8
afterAll(async () => {
  await server.stop()
  await rm(folder, {recursive: true, force: true})
})

describe('npm start', () => {
  it('serves the dataset file and says where', async () => {
    expect(output()).toContain(
      `Serving ${sampleCounts.episodes} episodes, ${sampleCounts.meetups} meetups and ${sampleCounts.voices} voices`,
    )
    expect((await fetch(`${baseUrl}/api/v1/index.json`)).status).toBe(200)
  })

  it('picks up an edit of the dataset file, even one that replaces the file, and rebuilds only the edited document', async () => {
    const text = await readFile(datasetFile, 'utf8')
    const editedId = JSON.parse(
      text.split('\n').find((line) => line.includes('"current":"ep-1-why-we-started"')) ?? '{}',
    )._id
    const edited = text.replace(
      '"title":"פרק 1: למה התחלנו פודקאסט על קוד"',
      '"title":"פרק 1: למה התחלנו, בגרסה ערוכה"',
    )
    expect(edited).not.toBe(text)
    await writeFile(`${datasetFile}.tmp`, edited)
    await rename(`${datasetFile}.tmp`, datasetFile)
    await eventually(async () => {
      const {data} = await readContract(
        await fetch(`${baseUrl}/api/v1/episodes/ep-1-why-we-started.json`),
        itemEnvelope(episodeSchema),
      )
      expect(data.title).toBe('פרק 1: למה התחלנו, בגרסה ערוכה')
    }, 5000)
    expect(output()).toContain(`rebuild of ${editedId} done`)
    expect(output()).not.toContain('full rebuild')
  })

  it('keeps serving when the file turns into garbage, and says why', async () => {
    const etag = (await fetch(`${baseUrl}/api/v1/all.json`)).headers.get('etag')
    await writeFile(datasetFile, '{"_id": "broken"\n')
    await eventually(async () => expect(output()).toMatch(/full rebuild failed .*not valid JSON/), 5000)
    const response = await fetch(`${baseUrl}/api/v1/all.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toBe(etag)
  })

  it('reconciles on a timer', async () => {
    const timed = await startMainProcess({PORT: '0', DATASET_FILE: SAMPLE_DATASET, RECONCILE_INTERVAL_SECONDS: '1'})
    try {
      await eventually(async () => expect(timed.output()).toContain('re-reading the catalog: reconcile timer'), 5000)
    } finally {
      await timed.stop()
    }
    expect(output()).not.toContain('reconcile timer')
  })

  it('drops log lines instead of growing when stdout stalls, counts them, keeps answering, and exits on SIGTERM within the shutdown timeout', async () => {
    const shutdownTimeoutMs = 3000
    const stalled = await startMainProcess({
      PORT: '0',
      DATASET_FILE: SAMPLE_DATASET,
      RECONCILE_INTERVAL_SECONDS: '0',
      RATE_LIMIT_QUOTA: '0',
      SHUTDOWN_TIMEOUT_SECONDS: String(shutdownTimeoutMs / 1000),
    })
    try {
      stalled.stallOutput()
      // About 8 MB of log lines, twice what the logger may hold, from requests that each log a line
      // as long as the log keeps one (a URL and a user agent are kept up to 512 and 256 characters).
      const userAgent = `stalled-log-test ${'x'.repeat(256)}`
      const slug = 'y'.repeat(450)
      for (let batch = 0; batch < 160; batch++) {
        const statuses = await Promise.all(
          Array.from({length: 50}, (_, index) =>
            fetch(`${stalled.baseUrl}/api/v1/episodes/${slug}-${batch}-${index}.json`, {
              headers: {'User-Agent': userAgent},
            }).then((response) => response.status),
          ),
        )
        expect(new Set(statuses)).toEqual(new Set([404]))
      }
      const metrics = await (await fetch(`${stalled.baseUrl}/metrics`)).text()
      const value = (name: string) =>
        Number(/^(\S+) (\S+)$/m.exec(metrics.split('\n').find((line) => line.startsWith(`${name} `)) ?? '')?.[2])
      // About half the 8,000 lines fit in the 4 MB the logger may hold; the rest were dropped.
      expect(value('catalog_log_lines_dropped_total')).toBeGreaterThan(2000)

      // stdout still stalled, with megabytes of lines waiting: the exit flush gives up on them. A
      // process held by its stalled stdout never exits; 30 s is reached by nothing else.
      const exit = await Promise.race([stalled.stop('SIGTERM'), sleep(30_000).then(() => 'still running')])
      expect(exit).toBe(0)
      // The flush was given what was left of the shutdown timeout, no more.
      const gaveUp = /stdout took no more log within (\d+) ms; dropped the last \d+ bytes/.exec(stalled.output())
      expect(gaveUp, 'the exit flush gave up on the stalled stdout').not.toBeNull()
      expect(Number(gaveUp?.[1]), 'ms the exit flush waited').toBeLessThanOrEqual(shutdownTimeoutMs)
    } finally {
      await stalled.stop('SIGKILL')
    }
  }, 120_000)

  it('refuses to start in one line naming REDIS_URL when Redis does not answer', async () => {
    const port = await freePort() // nothing listens there
    const exit = await runMainToExit({PORT: '0', DATASET_FILE: SAMPLE_DATASET, REDIS_URL: `redis://127.0.0.1:${port}`})
    expect(exit.code).toBe(1)
    expect(exit.stderr).not.toMatch(/\n\s+at /)
    expect(exit.stderr.trim()).toMatch(
      /^catalog-api: REDIS_URL: no answer from redis:\/\/127\.0\.0\.1:\d+\/? within 10000 ms\. Start Redis or correct REDIS_URL\.$/,
    )
  }, 30_000)

  it('holds a re-read that drops most of the catalog until a later read agrees or an operator confirms', async () => {
    const guardedFile = join(folder, 'guarded.ndjson')
    const lines = (await readFile(SAMPLE_DATASET, 'utf8')).split('\n').filter((line) => line.trim() !== '')
    await writeFile(guardedFile, `${lines.join('\n')}\n`)
    const guarded = await startMainProcess({
      PORT: '0',
      DATASET_FILE: guardedFile,
      RECONCILE_INTERVAL_SECONDS: '0',
      MASS_DELETION_CONFIRM_SECONDS: '1',
    })
    const total = sampleCounts.episodes + sampleCounts.meetups + sampleCounts.voices
    const served = async () => {
      const {counts} = z
        .object({counts: z.record(z.string(), z.number())})
        .parse(await (await fetch(`${guarded.baseUrl}/api/v1/all.json`)).json())
      return Object.values(counts).reduce((sum, count) => sum + count, 0)
    }
    const status = async () =>
      z
        .object({status: z.string(), last_build: z.object({error: z.string().nullable()}).nullable()})
        .parse(await (await fetch(`${guarded.baseUrl}/status`)).json())
    try {
      expect(await served()).toBe(total)
      // A file cut at a line boundary, as a half-finished copy leaves it: the first tenth of its lines.
      await writeFile(guardedFile, `${lines.slice(0, Math.floor(lines.length / 10)).join('\n')}\n`)
      await eventually(
        async () =>
          expect((await status()).last_build?.error).toMatch(
            /^held: the source now has \d+ documents where \d+ are served/,
          ),
        5000,
      )
      expect((await status()).status).toBe('degraded')
      expect(await served()).toBe(total)
      // The same content read again a second later is believed.
      await eventually(async () => expect(await served()).toBeLessThan(total / 2), 10_000)
      expect((await status()).status).toBe('ok')

      // Growth is never held.
      await writeFile(guardedFile, `${lines.join('\n')}\n`)
      await eventually(async () => expect(await served()).toBe(total), 5000)

      // Emptied: held, until the operator confirms with SIGHUP.
      await writeFile(guardedFile, '')
      await eventually(
        async () => expect((await status()).last_build?.error).toMatch(/^held: the source now has 0 documents/),
        5000,
      )
      expect(await served()).toBe(total)
      guarded.signal('SIGHUP')
      await eventually(async () => expect(await served()).toBe(0), 5000)
    } finally {
      await guarded.stop()
    }
  }, 30_000)

  it('writes only JSON lines, and no warning on a normal start', () => {
    const lines = output()
      .split('\n')
      .filter((line) => line.trim() !== '')
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
    // Up to listening, nothing above info: the MCP SDK's warning about JSON responses is answered
    // (no tool sends mid-call notifications). Later lines belong to the tests above.
    const startUp = lines.slice(0, lines.findIndex((line) => line.includes('listening on')) + 1)
    expect(startUp.length).toBeGreaterThan(1)
    expect(startUp.filter((line) => /"level":(40|50|60)/.test(line))).toEqual([])
  })

  it('leads / to the developer portal', async () => {
    const response = await fetch(`${baseUrl}/`, {redirect: 'manual'})
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('/docs')
    expect(await response.text()).toBe('')
  })

  it('refuses a bad configuration and a taken port in one line each, without a stack trace', async () => {
    const bad = await runMainToExit({PORT: 'abc', DATASET_FILE: SAMPLE_DATASET})
    expect(bad.code).toBe(1)
    expect(bad.stderr.trim()).toBe(
      'catalog-api: Invalid configuration: PORT: Invalid input: expected number, received NaN (got "abc")',
    )
    const taken = await runMainToExit({
      PORT: new URL(baseUrl).port,
      DATASET_FILE: SAMPLE_DATASET,
      RECONCILE_INTERVAL_SECONDS: '0',
    })
    expect(taken.code).toBe(1)
    expect(taken.stderr).not.toMatch(/\n\s+at /)
    const fatal = taken.stdout.split('\n').filter((line) => line.includes('"level":60'))
    expect(fatal.map((line) => JSON.parse(line).msg)).toEqual([
      `cannot listen: 127.0.0.1:${new URL(baseUrl).port} is already in use: stop whatever listens there or set PORT to another port`,
    ])
  })
})
