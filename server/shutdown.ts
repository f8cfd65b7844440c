import {withDeadline} from './deadline.ts'
import type {EdgePurging} from './edge/edge-purging.ts'
import type {EventStreams} from './http/event-streams.ts'
import type {CatalogHttpServer} from './http/server.ts'
import type {ListenStreams} from './mcp/listen-streams.ts'
import type {SnapshotSaver} from './snapshot-saver.ts'
import type {SnapshotStore} from './snapshot/store.ts'

/** The share of the shutdown timeout kept for the last save, at most: the drain of clients gets the rest. */
const SAVE_RESERVE_MS = 2000
/** How long a save already writing is waited for at the end of a shutdown, whatever the timeout. */
const WRITE_SETTLE_MS = 1000

/** What a running catalog service stops, in the order `shutDownInOrder` stops it. */
export interface RunningParts {
  /** Stops watching the dataset file, when it is watched. */
  stopWatching?: (() => void) | undefined
  /** Its close stops the timers that bring changes: the reconcile timer, the release timer. */
  publish: {close(): void}
  store: Pick<SnapshotStore, 'settled' | 'close'>
  saver?: Pick<SnapshotSaver, 'flush' | 'close'> | undefined
  listenStreams: Pick<ListenStreams, 'close'>
  eventStreams: Pick<EventStreams, 'close'>
  http: Pick<CatalogHttpServer, 'shutDown'>
  edge?: Pick<EdgePurging, 'close'> | undefined
  replicas?: {close(): Promise<void>} | undefined
}

/**
 * Stops timers and watchers, finishes in-flight requests (cut after `timeoutMs`), saves the newest
 * snapshot, and leaves Redis last.
 */
export async function shutDownInOrder(timeoutMs: number, parts: RunningParts): Promise<void> {
  const {store, saver} = parts
  const deadline = Date.now() + timeoutMs
  parts.stopWatching?.()
  parts.publish.close()
  // The build a last webhook started, then the newest snapshot saved, so the next start serves
  // what this one served, never older: begun now, while clients drain, and again after the
  // drain for what a last request started, in a share of the timeout the drain cannot take.
  const persist = () => store.settled().then(() => saver?.flush())
  const saving = persist()
  // A listen stream never ends by itself: ended gracefully first, it holds no connection open.
  await parts.listenStreams.close()
  parts.eventStreams.close()
  await parts.http.shutDown(Math.max(0, deadline - Date.now() - Math.min(SAVE_RESERVE_MS, timeoutMs / 4)))
  store.close()
  await within(saving.then(persist), deadline - Date.now())
  // A write under way keeps its file open: it settles first, however short the timeout was.
  await within(saver?.close(), Math.max(deadline - Date.now(), WRITE_SETTLE_MS))
  parts.edge?.close()
  await parts.replicas?.close()
}

/** Resolves when `work` settles or `ms` have passed, whichever is first; never rejects. */
async function within(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  await withDeadline(Promise.resolve(work), Math.max(0, ms), 'a shutdown step ran out of time').catch(() => undefined)
}
