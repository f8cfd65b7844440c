import {LRUCache} from 'lru-cache'

/** How many distinct lines are remembered as logged: months of edits make ever new ones. */
const REMEMBERED = 10_000

/**
 * Logs a line the first time its key is seen, and not again while it is remembered: a document
 * refused at every build, or an item an output leaves out of every snapshot, is said once. Bounded:
 * the least recently seen keys go first, and such a line is logged again when it comes back.
 */
export function logOnce(remembered = REMEMBERED): (key: string, log: () => void) => void {
  const seen = new LRUCache<string, true>({max: remembered})
  return (key, log) => {
    if (seen.has(key)) return
    seen.set(key, true)
    log()
  }
}
