import type {Logger} from 'pino'
import {logOnce} from './observability/log-once.ts'
import type {LeftOutItem} from './snapshot/site-documents-on-first-use.ts'
import type {Snapshot} from './snapshot/snapshot.ts'

/**
 * The one report of what the catalog and its outputs left out or could not carry as written: the
 * documents the mapping refused or warned about (a snapshot's `problems`), and the items an output
 * (the feed, a sitemap) left out, which each snapshot keeps (`Snapshot.leftOut`). Each is logged
 * once for as long as it keeps happening.
 */
export interface LeftOutItems {
  /** Logs `snapshot`'s document problems (a publish's `report` step). */
  reportProblems(snapshot: Snapshot): void
  /** Logs an item an output left out, as the output is built. */
  record(item: LeftOutItem): void
}

export function createLeftOutItems(logger: Logger): LeftOutItems {
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
    record({output, documentId, reason}) {
      once(`${output} ${documentId} ${reason}`, () =>
        logger.warn({documentId, output}, `${output} left out ${documentId}: ${reason}`),
      )
    },
  }
}
