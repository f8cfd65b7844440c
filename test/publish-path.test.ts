// The publish path without a socket: what follows an accepted change and each build, in order, each
// step contained (one that throws is logged, and the next one runs). A real store over a tiny
// dataset and a real logger; the other parts are recorders of the small interfaces the path calls.
import {pino} from 'pino'
import {afterEach, describe, expect, it} from 'vitest'
import {createCatalogBuilder} from '../server/catalog-builder.ts'
import {loadConfig} from '../server/config.ts'
import {createEmbeddedSource} from '../server/content/embedded-source.ts'
import {createLeftOutItems} from '../server/left-out-items.ts'
import {createPublishPath, type PublishPath} from '../server/publish-path.ts'
import {createSnapshotStore, type BuildOutcome, type SnapshotStore} from '../server/snapshot/store.ts'
import {episode, voice} from './fixtures/documents.ts'
import {eventually} from '../support/eventually.ts'

const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})
const BUILT_AT = new Date('2027-06-01T05:00:00Z')
const RELEASE = '2027-06-01T06:00:00.000Z'
const AFTER_RELEASE = new Date('2027-06-01T06:00:01Z')
const documents = [
  voice('dana'),
  episode('ep-1'),
  episode('ep-2', {_id: 'later', publishedAt: RELEASE}), // held back until its release
]
// The one document problem of this dataset (no podcast settings, so no feed), as the log says it.
const PROBLEM =
  'log: rejected: settings document podcastSettings: there is no podcast settings document, so there is no feed'
const isProblem = (step: string) => step.startsWith(PROBLEM)

/** The steps after a build, in the order the path runs them (`report` and `releases` are seen in the log and as `accepted`). */
const SERVED_STEPS = ['save', 'replicas', 'purge', 'ping', 'podping', 'agents', 'events']

let opened: {publish: PublishPath; store: SnapshotStore}[] = []
afterEach(async () => {
  for (const {publish, store} of opened) {
    publish.close()
    await store.settled()
    store.close()
  }
  opened = []
})

/**
 * A publish path whose parts record each call in `steps`, log lines included; `throwing` names the
 * one that throws (`report` by its warning, `releases` by the clock its timer reads).
 */
async function publishPath(options: {throwing?: string; recorded?: boolean} = {}) {
  const steps: string[] = []
  const logged: {level: number; msg: string; step?: string}[] = []
  const logger = pino(
    {
      level: 'info',
      hooks: {
        logMethod(args, method, level) {
          if (options.throwing === 'report' && level === 40) throw new Error('report broke')
          method.apply(this, args)
        },
      },
    },
    {
      write: (line: string) => {
        const entry = JSON.parse(line) as {level: number; msg: string; step?: string}
        logged.push(entry)
        steps.push(`log: ${entry.msg}`)
      },
    },
  )
  const step = (name: string) => () => {
    steps.push(name)
    if (name === options.throwing) throw new Error(`${name} broke`)
  }
  const {build} = createCatalogBuilder({
    source: createEmbeddedSource('inline', async () => documents),
    config,
    clock: () => BUILT_AT,
  })
  const store = await createSnapshotStore(build, {clock: () => BUILT_AT})
  const publish = createPublishPath({
    store: {
      refresh: (changes) => {
        steps.push(`rebuild ${changes?.map((change) => change.documentId).join(', ') ?? 'all'}`)
        return store.refresh(changes)
      },
    },
    clock: () => {
      if (options.throwing === 'releases') throw new Error('releases broke')
      return AFTER_RELEASE
    },
    logger,
    metrics: {recordBuild: step('record')},
    leftOut: createLeftOutItems(logger),
    saver: {served: step('save')},
    replicas: {
      servedVersions: {serving: step('replicas')},
      fanOut: {announce: step('fan-out')},
      history: {announce: step('history')},
    },
    edge: {
      changeAccepted: () => {
        step('accepted')()
        return options.recorded ?? true
      },
      snapshotServed: step('purge'),
    },
    feedPinger: {observe: step('ping')},
    podping: {observe: step('podping')},
    agents: {served: step('agents')},
    events: {served: step('events')},
  })
  opened.push({publish, store})
  return {publish, store, steps, logged}
}

const succeeded = (): BuildOutcome => ({kind: 'full', ok: true, startedAt: BUILT_AT, durationMs: 5})

describe('the publish path after a build', () => {
  it('records, reports, saves, tells the replicas, purges, pings, announces, and waits for the next release', async () => {
    const {publish, store, steps} = await publishPath()
    publish.built(succeeded(), store.currentBuild())
    expect(steps).toEqual([
      'log: full rebuild done in 5 ms',
      'record',
      expect.stringMatching(`^${PROBLEM}`),
      ...SERVED_STEPS,
    ])
    // The last step armed the release timer: the held episode is due, and comes back as a change accepted.
    await eventually(async () => expect(steps).toContain('fan-out'))
    expect(steps.slice(10)).toEqual(['accepted', 'rebuild later', 'fan-out'])
  })

  it('reports a document problem once while it stays the same', async () => {
    const {publish, store, steps} = await publishPath()
    publish.served(store.currentBuild(), BUILT_AT)
    publish.served(store.currentBuild(), BUILT_AT)
    publish.close()
    expect(steps.filter(isProblem)).toHaveLength(1)
  })

  const EVERY_STEP = ['record', 'report', ...SERVED_STEPS, 'releases']
  it.each(EVERY_STEP)('logs %s when it throws, and runs every step after it', async (broken) => {
    const {publish, store, steps, logged} = await publishPath({throwing: broken})
    publish.built(succeeded(), store.currentBuild())
    publish.close()
    const failed = `${broken} failed after a build; the other steps ran`
    expect(logged).toContainEqual(expect.objectContaining({level: 50, step: broken, msg: failed}))
    const ran = steps.filter((step) => !step.startsWith('log: '))
    expect(ran).toEqual(['record', ...SERVED_STEPS])
    // Said as it failed, and the steps after it ran after that, in their order.
    const after = steps.slice(steps.indexOf(`log: ${failed}`) + 1).filter((step) => !step.startsWith('log: '))
    expect(after).toEqual(EVERY_STEP.slice(EVERY_STEP.indexOf(broken) + 1).filter((step) => ran.includes(step)))
  })

  it('records a failed build and goes no further: the last good snapshot stays served as it was', async () => {
    const {publish, store, steps} = await publishPath()
    const failed: BuildOutcome = {kind: 'full', ok: false, startedAt: BUILT_AT, durationMs: 7, error: 'source down'}
    publish.built(failed, store.currentBuild())
    publish.close()
    expect(steps).toEqual([
      'log: full rebuild failed after 7 ms (source down); still serving the last good snapshot, retrying',
      'record',
    ])
  })
})

describe('the publish path for an accepted change', () => {
  it('notes the change for the edge, rebuilds what it names, then tells the other replicas', async () => {
    const {publish, steps} = await publishPath()
    expect(publish.accepted([{documentId: 'ep-1', collection: 'episodes'}, 'all'])).toBe(true)
    expect(steps).toEqual(['accepted', 'rebuild all', 'fan-out', 'fan-out'])
  })

  it('says so when the edge could not note it, and still rebuilds and tells the replicas', async () => {
    const {publish, steps} = await publishPath({recorded: false})
    expect(publish.accepted([{documentId: 'ep-1', collection: 'episodes'}])).toBe(false)
    expect(steps).toEqual(['accepted', 'rebuild ep-1', 'fan-out'])
  })

  it('logs a fan-out that throws, and still answers', async () => {
    const {publish, steps, logged} = await publishPath({throwing: 'fan-out'})
    expect(publish.accepted([{documentId: 'ep-1', collection: 'episodes'}])).toBe(true)
    expect(steps.filter((step) => !step.startsWith('log: '))).toEqual(['accepted', 'rebuild ep-1', 'fan-out'])
    expect(logged).toContainEqual(expect.objectContaining({level: 50, step: 'fan-out'}))
  })

  it('rebuilds a change another replica heard, and a re-read, without announcing them', async () => {
    const {publish, steps} = await publishPath()
    publish.heardFromReplica({documentId: 'ep-1', collection: 'episodes'})
    publish.reread('reconcile timer')
    expect(steps).toEqual([
      'log: another replica received a webhook; rebuilding',
      'rebuild ep-1',
      'log: re-reading the catalog: reconcile timer',
      'rebuild all',
    ])
  })
})
