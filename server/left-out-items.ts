import type {Logger} from 'pino'
import type {LeftOut} from './discovery/sitemaps.ts'
import {logOnce} from './observability/log-once.ts'
import type {Snapshot} from './snapshot/snapshot.ts'

/** An item an output (the feed, a sitemap) left out because it could not be written, and why. */
interface LeftOutItem extends LeftOut {
  output: string
}

/**
 * The one report of what the catalog and its outputs left out or could not carry as written: the
 * documents the mapping refused or warned about (a snapshot's `problems`), and the items an output
 * (the feed, a sitemap) left out. Each is logged once for as long as it keeps happening.
 */
export interface LeftOutItems {
  /** Logs `snapshot`'s document problems (a publish's `report` step). */
  reportProblems(snapshot: Snapshot): void
  /** What `output` of `snapshot` left out. */
  record(snapshot: Snapshot, output: string, item: LeftOut): void
  of(snapshot: Snapshot): readonly LeftOutItem[]
}

/**
 * The outputs' own refusals are kept per snapshot (a retired snapshot's go with it). Site documents
 * are built lazily, so an item is recorded when the output that cannot carry it is first made.
 */
export function createLeftOutItems(logger: Logger): LeftOutItems {
  const bySnapshot = new WeakMap<Snapshot, Map<string, LeftOutItem>>()
  const once = logOnce()
  return {
    reportProblems(snapshot) {
      for (const {documentId, collection, severity, messages} of snapshot.catalog.problems)
        once(`${documentId} ${severity} ${messages.join('; ')}`, () =>
          logger.warn(
            {documentId, collection},
            `${severity}: ${collection} document ${documentId}: ${messages.join('; ')}`,
          ),
        )
    },
    record(snapshot, output, item) {
      let items = bySnapshot.get(snapshot)
      if (!items) bySnapshot.set(snapshot, (items = new Map<string, LeftOutItem>()))
      const key = `${output} ${item.documentId} ${item.reason}`
      items.set(key, {output, ...item})
      once(key, () =>
        logger.warn({documentId: item.documentId, output}, `${output} left out ${item.documentId}: ${item.reason}`),
      )
    },
    of: (snapshot) => [...(bySnapshot.get(snapshot)?.values() ?? [])],
  }
}
