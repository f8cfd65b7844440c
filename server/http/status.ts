import type {RequestHandler} from 'express'
import type {SnapshotStore} from '../snapshot/store.ts'

/**
 * `GET /status`: what an operator needs to know about the content, built per request from the
 * current snapshot and the store: its age and counts, the last build, and every document that is
 * not served as it is in the source.
 */
export function statusHandler(store: SnapshotStore, sourceDescription: string, clock: () => Date): RequestHandler {
  return (_request, response) => {
    const snapshot = store.current()
    const status = store.status()
    const iso = (date: Date | undefined) => date?.toISOString() ?? null
    response.set('Cache-Control', 'no-store').json({
      status: status.consecutiveFailures === 0 ? 'ok' : 'degraded',
      source: sourceDescription,
      snapshot: {
        version: snapshot.version,
        built_at: iso(snapshot.builtAt),
        age_seconds: Math.max(0, Math.round((clock().getTime() - snapshot.builtAt.getTime()) / 1000)),
        counts: snapshot.counts,
      },
      last_build: status.lastBuild
        ? {
            kind: status.lastBuild.kind,
            ok: status.lastBuild.ok,
            started_at: iso(status.lastBuild.startedAt),
            duration_ms: status.lastBuild.durationMs,
            documents: status.lastBuild.documents ?? null,
            error: status.lastBuild.error ?? null,
          }
        : null,
      last_success_at: iso(status.lastSuccessAt),
      consecutive_failures: status.consecutiveFailures,
      next_retry_at: iso(status.nextRetryAt),
      problems: snapshot.catalog.problems.map((problem) => ({
        document_id: problem.documentId,
        collection: problem.collection,
        severity: problem.severity,
        messages: problem.messages,
      })),
    })
  }
}
