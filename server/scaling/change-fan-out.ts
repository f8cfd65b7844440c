import {z} from 'zod'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'
import type {ContentChange} from '../content/content-change.ts'
import {errorMessage} from '../errors.ts'

/** The two pub/sub calls the fan-out makes; a Redis client fits. */
interface PubSub {
  publish(channel: string, message: string): Promise<unknown>
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>
}

const messageSchema = z.object({
  replica: z.string().min(1),
  change: z.union([z.literal('all'), z.object({documentId: z.string().min(1), collection: z.enum(COLLECTION_NAMES)})]),
})

export interface ChangeFanOutOptions {
  publisher: PubSub
  subscriber: PubSub
  channel: string
  /** This process's name in messages, so it skips its own. */
  replicaId: string
  /** A change another replica received. */
  onRemoteChange: (change: ContentChange) => void
  onError: (error: unknown) => void
}

export interface ChangeFanOut {
  /** Tells the other replicas. The caller applies the change locally itself, so a Redis outage delays no one's own rebuild. */
  announce(change: ContentChange): void
}

/**
 * A webhook reaches one replica; every replica must rebuild. Messages carry a hint, never content:
 * each replica reads the content from the source itself, so they converge on the same bytes (and
 * ETags). A message lost while a replica was disconnected is covered by the full re-read that
 * follows a reconnect (see `redis.ts`) and by the reconcile timer.
 */
export async function createChangeFanOut(options: ChangeFanOutOptions): Promise<ChangeFanOut> {
  const {publisher, subscriber, channel, replicaId, onRemoteChange, onError} = options
  await subscriber.subscribe(channel, (text) => {
    let message: z.infer<typeof messageSchema>
    try {
      message = messageSchema.parse(JSON.parse(text))
    } catch (error) {
      onError(new Error(`ignored a malformed message on ${channel}: ${errorMessage(error)}`))
      return
    }
    if (message.replica !== replicaId) onRemoteChange(message.change)
  })
  return {
    announce(change) {
      publisher.publish(channel, JSON.stringify({replica: replicaId, change})).catch(onError)
    },
  }
}
