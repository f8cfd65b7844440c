import {z} from 'zod'
import {historyStepSchema, type HistoryStep, type SharedHistory} from '../snapshot/shared-history.ts'

/** The Redis calls the history fan-out makes; a Redis client fits. */
interface HistoryStore {
  publish(channel: string, message: string): Promise<unknown>
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>
  rPush(key: string, element: string): Promise<unknown>
  lTrim(key: string, start: number, stop: number): Promise<unknown>
  lRange(key: string, start: number, stop: number): Promise<string[]>
}

/** Steps kept in Redis for a replica that starts later (each replica keeps its own bounded copy). */
const STEPS_KEPT = 10_000
/** A step naming more items (a full re-read that changed most of the catalog) is not shared: its token answers 410 elsewhere. */
const MAX_SHARED_ITEMS = 10_000

const messageSchema = z.object({replica: z.string().min(1), step: historyStepSchema})

export interface HistoryFanOutOptions {
  /** The client for commands and publishing. */
  commands: HistoryStore
  /** The client dedicated to subscriptions. */
  subscriber: Pick<HistoryStore, 'subscribe'>
  /** `<prefix>history`: the channel, and the list of the last steps. */
  key: string
  replicaId: string
  shared: SharedHistory
  onError: (error: unknown) => void
}

export interface HistoryFanOut {
  /** This replica served `step`: the others learn it, so its token is understood there too. */
  announce(step: HistoryStep): void
}

/**
 * Change-feed tokens that work on every replica: each replica tells the others every version it
 * serves (from which version, with which items), and keeps what it hears in a SharedHistory that
 * its change history reads when a token is not its own. Steps are also kept in a bounded Redis list,
 * read at start, so a replica that starts later understands the tokens given out before it.
 */
export async function createHistoryFanOut(options: HistoryFanOutOptions): Promise<HistoryFanOut> {
  const {commands, subscriber, key, replicaId, shared, onError} = options
  const hear = (text: string) => {
    const parsed = messageSchema.safeParse(parseJson(text))
    if (!parsed.success) onError(new Error(`ignored a malformed message on ${key}: ${parsed.error.message}`))
    else if (parsed.data.replica !== replicaId) shared.record(parsed.data.step)
  }
  await subscriber.subscribe(key, hear)
  for (const text of await commands.lRange(key, -STEPS_KEPT, -1).catch((error: unknown) => (onError(error), [])))
    hear(text)
  return {
    announce(step) {
      if (step.items.length > MAX_SHARED_ITEMS) return
      const message = JSON.stringify({replica: replicaId, step})
      commands
        .publish(key, message)
        .then(() => commands.rPush(key, message))
        .then(() => commands.lTrim(key, -STEPS_KEPT, -1))
        .catch(onError)
    },
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
