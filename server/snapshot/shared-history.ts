import {z} from 'zod'
import {COLLECTION_NAMES} from '../../catalog/v1/links.ts'

const stepItemSchema = z.object({collection: z.enum(COLLECTION_NAMES), slug: z.string(), before: z.string().nullable()})
/** An item a step changed, with its ETag before the step (change-history.ts's ItemChange, which this module may not import). */
type StepItem = z.infer<typeof stepItemSchema>

/** One step another replica served: from one version to the next, and the items it changed. */
export interface HistoryStep {
  from: string
  to: string
  items: readonly StepItem[]
}

export const historyStepSchema = z.object({
  from: z.string().min(1),
  to: z.string().min(1),
  items: z.array(stepItemSchema),
})

/** Bounds no rate of publishing can pass: the oldest steps go first. */
const MAX_STEPS = 10_000
const MAX_ITEM_CHANGES = 200_000
/** The longest walk from a token to a version this replica knows. */
const MAX_WALK = 10_000

/**
 * The steps other replicas served, so that a token one of them gave out is understood here even when
 * this replica never served its version (it built two edits as one, or started later): from the
 * token, the steps lead to a version this replica's own history holds, and the items on the way are
 * added to what changed since. Versions are digests of the served bytes, so the replicas' versions
 * meet. Bounded by steps and by item changes, oldest first out.
 */
export class SharedHistory {
  readonly #steps = new Map<string, HistoryStep>()
  readonly #byFrom = new Map<string, Set<string>>()
  #itemChanges = 0

  record(step: HistoryStep): void {
    const key = `${step.from} ${step.to}`
    if (step.from === step.to || this.#steps.has(key)) return
    this.#steps.set(key, step)
    this.#byFrom.set(step.from, (this.#byFrom.get(step.from) ?? new Set()).add(key))
    this.#itemChanges += step.items.length
    for (const [oldestKey, oldest] of this.#steps) {
      if (this.#steps.size <= MAX_STEPS && this.#itemChanges <= MAX_ITEM_CHANGES) break
      this.#forget(oldestKey, oldest)
    }
  }

  /**
   * The steps from `token` to the first version `known` accepts, their items in order (the earliest
   * change of an item first), and that version; undefined when no recorded steps lead there.
   */
  pathFrom(token: string, known: (version: string) => boolean): {items: StepItem[]; reached: string} | undefined {
    // Breadth first, so the path found is the shortest; each version is visited once.
    const cameBy = new Map<string, HistoryStep | null>([[token, null]])
    const queue = [token]
    for (let next = 0; next < queue.length && next < MAX_WALK; next++) {
      const version = queue[next] ?? ''
      for (const key of this.#byFrom.get(version) ?? []) {
        const step = this.#steps.get(key)
        if (!step || cameBy.has(step.to)) continue
        cameBy.set(step.to, step)
        if (known(step.to)) return {items: itemsAlong(cameBy, step.to), reached: step.to}
        queue.push(step.to)
      }
    }
    return undefined
  }

  #forget(key: string, step: HistoryStep): void {
    this.#steps.delete(key)
    this.#itemChanges -= step.items.length
    const keys = this.#byFrom.get(step.from)
    keys?.delete(key)
    if (keys?.size === 0) this.#byFrom.delete(step.from)
  }
}

function itemsAlong(cameBy: ReadonlyMap<string, HistoryStep | null>, reached: string): StepItem[] {
  const steps: HistoryStep[] = []
  for (let step = cameBy.get(reached); step; step = cameBy.get(step.from)) steps.unshift(step)
  return steps.flatMap((step) => step.items)
}
