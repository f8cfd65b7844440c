// The saved snapshot follows the served one: a burst is one write, the newest wins, a refused
// directory is said once and tried again until it takes the write, and a flush writes at once.
// Real snapshots of a tiny dataset; a file stand-in records what it is asked to save; fake timers.
import pino from 'pino'
import {afterEach, beforeAll, beforeEach, describe, expect, it, vi} from 'vitest'
import {buildSnapshot, type Snapshot} from '../server/snapshot/snapshot.ts'
import {UNCONFIRMED_FINGERPRINT, type SnapshotFile} from '../server/snapshot/saved-snapshot.ts'
import {createSnapshotSaver} from '../server/snapshot-saver.ts'
import {episode, voice} from './fixtures/documents.ts'
import {catalogOf, snapshotSettings} from './helpers/snapshot-settings.ts'

const NOW = new Date('2026-12-01T10:00:00Z')
const settings = snapshotSettings({site: () => [], feed: undefined, keying: undefined})
let snapshots: Snapshot[]

beforeAll(async () => {
  snapshots = await Promise.all(
    [1, 2, 3].map(async (edit) =>
      buildSnapshot(
        await catalogOf([voice('v-1'), episode('ep-1', {title: `עריכה ${edit}`})]),
        settings,
        undefined,
        NOW,
      ),
    ),
  )
})

/** A saved file that records each save, and refuses while `refusing` holds a reason. */
function recordingFile() {
  const saves: {version: string; fingerprint: string}[] = []
  const state = {refusing: undefined as string | undefined}
  const file: SnapshotFile = {
    load: async () => undefined,
    save: async (snapshot, fingerprint) => {
      if (state.refusing !== undefined) throw new Error(state.refusing)
      saves.push({version: snapshot.version, fingerprint})
    },
  }
  return {file, saves, state}
}

const lines: {level: number; msg: string}[] = []
const logger = pino(
  {level: 'info'},
  {write: (line: string) => void lines.push(JSON.parse(line) as {level: number; msg: string})},
)
const warnings = () => lines.filter((line) => line.level === 40).map((line) => line.msg)

beforeEach(() => {
  lines.length = 0
  vi.useFakeTimers({toFake: ['setTimeout', 'clearTimeout']})
})
afterEach(() => vi.useRealTimers())

describe('the snapshot saver', () => {
  it('saves a burst of served snapshots once, the newest, a second after the first', async () => {
    const {file, saves} = recordingFile()
    const saver = createSnapshotSaver({file, directory: '/saved', logger, probe: async () => undefined})
    for (const snapshot of snapshots) saver.served({snapshot})
    await vi.advanceTimersByTimeAsync(999)
    expect(saves).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(saves).toEqual([{version: snapshots[2]?.version, fingerprint: UNCONFIRMED_FINGERPRINT}])
    await vi.advanceTimersByTimeAsync(10_000)
    expect(saves).toHaveLength(1)
  })

  it('writes nothing for the snapshot it restored, and flushes what waits at once', async () => {
    const {file, saves} = recordingFile()
    const saver = createSnapshotSaver({file, directory: '/saved', logger, probe: async () => undefined})
    const [restored, edited] = snapshots
    if (!restored || !edited) throw new Error('expected snapshots')
    saver.alreadySaved({snapshot: restored})
    saver.served({snapshot: restored})
    await vi.advanceTimersByTimeAsync(5000)
    expect(saves).toEqual([])
    saver.served({snapshot: edited})
    await saver.flush()
    expect(saves.map((save) => save.version)).toEqual([edited.version])
  })

  it('drops a waiting snapshot when the one served next is the one already saved', async () => {
    const {file, saves} = recordingFile()
    const saver = createSnapshotSaver({file, directory: '/saved', logger, probe: async () => undefined})
    const [saved, edited] = snapshots
    if (!saved || !edited) throw new Error('expected snapshots')
    saver.alreadySaved({snapshot: saved})
    saver.served({snapshot: edited})
    saver.served({snapshot: saved})
    await vi.advanceTimersByTimeAsync(5000)
    expect(saves, 'the file already holds what is served').toEqual([])
  })

  it('says once that the directory refuses, keeps the newest waiting, and saves it once the directory takes it', async () => {
    const {file, saves, state} = recordingFile()
    state.refusing = 'EROFS: read-only file system'
    const saver = createSnapshotSaver({file, directory: '/saved', logger, probe: async () => undefined, retryMs: 5000})
    saver.served({snapshot: snapshots[0] as Snapshot})
    await vi.advanceTimersByTimeAsync(1000)
    expect(saver.writeError()).toBe('EROFS: read-only file system')
    saver.served({snapshot: snapshots[1] as Snapshot})
    await vi.advanceTimersByTimeAsync(20_000)
    expect(warnings()).toHaveLength(1)
    expect(saves).toEqual([])

    state.refusing = undefined
    await vi.advanceTimersByTimeAsync(5000)
    expect(saves.map((save) => save.version)).toEqual([snapshots[1]?.version])
    expect(saver.writeError()).toBeNull()
    expect(lines.map((line) => line.msg)).toContain('/saved is written again')
  })

  it('refused at start with nothing to save, probes the directory until it is writable', async () => {
    const {file} = recordingFile()
    let writable = false
    const saver = createSnapshotSaver({
      file,
      directory: '/saved',
      logger,
      refusedAtStart: 'EROFS',
      retryMs: 5000,
      probe: async () => {
        if (!writable) throw new Error('EROFS: still read-only')
      },
    })
    expect(saver.writeError()).toBe('EROFS')
    await vi.advanceTimersByTimeAsync(5000)
    expect(saver.writeError()).toBe('EROFS: still read-only')
    expect(warnings()).toEqual([]) // the start already said it
    writable = true
    await vi.advanceTimersByTimeAsync(5000)
    expect(saver.writeError()).toBeNull()
    await saver.close()
  })
})
