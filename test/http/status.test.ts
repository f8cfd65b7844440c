// GET /status as an operator reads it, from a store and an edge status the test makes up.
import {describe, expect, it} from 'vitest'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import type {EdgeStatus} from '../../server/edge/edge-purging.ts'
import {statusDocument, type StatusParts} from '../../server/http/status.ts'
import type {StoreStatus} from '../../server/snapshot/store.ts'

const builtAt = new Date('2026-01-01T00:00:00Z')
type Problem = Catalog['problems'][number]
const warning: Problem = {
  documentId: 'episode-9',
  collection: 'episodes',
  severity: 'warning',
  messages: ['guests: left out voice "ghost", which the catalog does not serve'],
}
/** What the status reads of a store serving a snapshot with these problems. */
const storeWith = (problems: readonly Problem[], status: StoreStatus): StatusParts['store'] => ({
  current: () => ({version: 'v1', builtAt, counts: {episodes: 2, meetups: 1, voices: 3}, catalog: {problems}}),
  status: () => status,
})

const leftOutItem = {output: '/feed.xml', documentId: 'episode-7', reason: 'its item could not be written'}

function statusOf(
  status: StoreStatus,
  now: Date,
  edge?: () => EdgeStatus,
  problems: readonly Problem[] = [warning],
  leftOut: (typeof leftOutItem)[] = [],
) {
  return {
    body: statusDocument({
      store: storeWith(problems, status),
      sourceDescription: 'file data/catalog.ndjson',
      clock: () => now,
      edge,
      leftOut: () => leftOut,
    }),
  }
}

describe('the status document', () => {
  it('reports a healthy store: ok, the snapshot, the last build, no edge', () => {
    const sent = statusOf(
      {
        lastBuild: {
          kind: 'documents',
          ok: true,
          startedAt: new Date('2026-01-01T00:00:00Z'),
          durationMs: 12,
          documents: ['episode-1'],
        },
        lastSuccessAt: builtAt,
        consecutiveFailures: 0,
        nextRetryAt: undefined,
      },
      new Date('2026-01-01T00:00:41.600Z'),
    )
    expect(sent.body).toEqual({
      status: 'ok',
      source: 'file data/catalog.ndjson',
      snapshot: {
        version: 'v1',
        built_at: '2026-01-01T00:00:00.000Z',
        age_seconds: 42,
        counts: {episodes: 2, meetups: 1, voices: 3},
      },
      last_build: {
        kind: 'documents',
        ok: true,
        started_at: '2026-01-01T00:00:00.000Z',
        duration_ms: 12,
        documents: ['episode-1'],
        error: null,
      },
      last_success_at: '2026-01-01T00:00:00.000Z',
      consecutive_failures: 0,
      next_retry_at: null,
      edge: null,
      rate_limit: null,
      request_bodies_in_flight: null,
      search_index: null,
      problems: [
        {
          document_id: 'episode-9',
          collection: 'episodes',
          severity: 'warning',
          messages: ['guests: left out voice "ghost", which the catalog does not serve'],
        },
      ],
      left_out: [],
    })
  })

  it('is degraded while anything is held back: a refused document, or settings served at their last valid version', () => {
    const healthy = {lastBuild: undefined, lastSuccessAt: builtAt, consecutiveFailures: 0, nextRetryAt: undefined}
    const refused: Problem = {
      documentId: 'episode-9',
      collection: 'episodes',
      severity: 'rejected',
      messages: ['title: Invalid input'],
    }
    const kept: Problem = {
      documentId: 'podcastSettings',
      collection: 'settings',
      severity: 'kept',
      messages: ["categories.0: is not in Apple Podcasts' category list"],
    }
    expect(statusOf(healthy, builtAt, undefined, [warning, refused]).body).toMatchObject({status: 'degraded'})
    expect(statusOf(healthy, builtAt, undefined, [kept]).body).toMatchObject({
      status: 'degraded',
      problems: [
        {
          document_id: 'podcastSettings',
          collection: 'settings',
          severity: 'kept',
          messages: ["categories.0: is not in Apple Podcasts' category list"],
        },
      ],
    })
    expect(statusOf(healthy, builtAt, undefined, []).body).toMatchObject({status: 'ok', problems: []})
    expect(statusOf(healthy, builtAt, undefined, [], [leftOutItem]).body).toMatchObject({
      status: 'degraded',
      left_out: [{output: '/feed.xml', document_id: 'episode-7', reason: 'its item could not be written'}],
    })
  })

  it('reports a failing store as degraded, with the error and the next retry; never a negative age', () => {
    const sent = statusOf(
      {
        lastBuild: {
          kind: 'full',
          ok: false,
          startedAt: new Date('2026-01-01T00:01:00Z'),
          durationMs: 5,
          error: 'source down',
        },
        lastSuccessAt: builtAt,
        consecutiveFailures: 2,
        nextRetryAt: new Date('2026-01-01T00:02:00Z'),
      },
      new Date('2025-12-31T23:59:00Z'),
    )
    expect(sent.body).toMatchObject({
      status: 'degraded',
      snapshot: {age_seconds: 0},
      last_build: {kind: 'full', ok: false, documents: null, error: 'source down'},
      consecutive_failures: 2,
      next_retry_at: '2026-01-01T00:02:00.000Z',
    })
  })

  it('reports no build before the first refresh', () => {
    expect(
      statusOf({lastBuild: undefined, lastSuccessAt: builtAt, consecutiveFailures: 0, nextRetryAt: undefined}, builtAt)
        .body,
    ).toMatchObject({last_build: null})
  })

  it("reports the CDN purge queue in the operator's words", () => {
    const edge: EdgeStatus = {
      provider: 'fastly',
      depth: 3,
      oldestUnpurgedAgeSeconds: 7,
      lastPurgedVersion: 'v0',
      purgesSent: 10,
      purgesFailed: 1,
      keysPurged: 25,
      keyFallbacks: 2,
      lastWebhookToPurgeMs: 120,
      purgeOverdue: false,
      writable: false,
      writeError: 'ENOSPC: no space left on device',
      deadLetters: [
        {at: Date.parse('2026-01-01T00:00:05Z'), error: 'HTTP 500', keyCount: 2, keys: ['episodes/a', 'episodes']},
      ],
    }
    const sent = statusOf(
      {lastBuild: undefined, lastSuccessAt: builtAt, consecutiveFailures: 0, nextRetryAt: undefined},
      builtAt,
      () => edge,
    )
    expect(sent.body.edge).toEqual({
      provider: 'fastly',
      queue_depth: 3,
      oldest_unpurged_age_seconds: 7,
      last_purged_version: 'v0',
      purges_sent: 10,
      purges_failed: 1,
      keys_purged: 25,
      key_fallbacks: 2,
      last_webhook_to_purge_ms: 120,
      purge_overdue: false,
      queue_writable: false,
      queue_write_error: 'ENOSPC: no space left on device',
      dead_letters: [
        {at: '2026-01-01T00:00:05.000Z', error: 'HTTP 500', key_count: 2, keys: ['episodes/a', 'episodes']},
      ],
    })
  })
})

describe('the status document, from the parts a deployment has', () => {
  const healthy: StoreStatus = {
    lastBuild: undefined,
    lastSuccessAt: builtAt,
    consecutiveFailures: 0,
    nextRetryAt: undefined,
  }
  const edgeWith = (writable: boolean, purgeOverdue: boolean): EdgeStatus => ({
    provider: 'varnish',
    depth: 0,
    oldestUnpurgedAgeSeconds: null,
    lastPurgedVersion: null,
    purgesSent: 0,
    purgesFailed: 0,
    keysPurged: 0,
    keyFallbacks: 0,
    lastWebhookToPurgeMs: null,
    purgeOverdue,
    writable,
    writeError: null,
    deadLetters: [],
  })
  const bodyOf = (status: StoreStatus, parts: Partial<StatusParts> = {}) =>
    statusDocument({store: storeWith([], status), sourceDescription: 'embedded', clock: () => builtAt, ...parts})

  it('leaves nothing out when no output reports what it left out', () => {
    expect(bodyOf(healthy)).toMatchObject({status: 'ok', left_out: []})
  })

  it('is ok while the purge queue is writable and no purge is overdue, degraded when either is not so', () => {
    expect(bodyOf(healthy, {edge: () => edgeWith(true, false)})).toMatchObject({status: 'ok'})
    expect(bodyOf(healthy, {edge: () => edgeWith(false, false)})).toMatchObject({status: 'degraded'})
    expect(bodyOf(healthy, {edge: () => edgeWith(true, true)})).toMatchObject({status: 'degraded'})
  })

  it('names the saved snapshot served at start only when there was one to look for', () => {
    expect(bodyOf(healthy)).not.toHaveProperty('saved_snapshot')
    const served = {savedAt: builtAt, refused: undefined, otherCode: false, behindEdge: false, firstRead: undefined}
    expect(bodyOf({...healthy, saved: served}).saved_snapshot).toEqual({
      saved_at: '2026-01-01T00:00:00.000Z',
      refused: null,
      written_by_other_code: false,
      behind_edge: false,
      write_error: null,
      first_read: null,
    })
    const refused = {
      savedAt: undefined,
      refused: 'damaged: episodes/a',
      otherCode: true,
      behindEdge: true,
      firstRead: 'failed' as const,
    }
    expect(bodyOf({...healthy, saved: refused}).saved_snapshot).toEqual({
      saved_at: null,
      refused: 'damaged: episodes/a',
      written_by_other_code: true,
      behind_edge: true,
      write_error: null,
      first_read: 'failed',
    })
  })

  it('says where requests are counted with a shared rate-limit store, and nothing without one', () => {
    expect(bodyOf(healthy).rate_limit).toBeNull()
    expect(bodyOf(healthy, {rateLimitLocalSince: () => undefined}).rate_limit).toEqual({
      counted: 'shared',
      local_since: null,
    })
    expect(bodyOf(healthy, {rateLimitLocalSince: () => new Date('2026-01-01T00:05:00Z')}).rate_limit).toEqual({
      counted: 'local',
      local_since: '2026-01-01T00:05:00.000Z',
    })
  })

  it("is degraded while the search index's background builds fail, and says when the next may start", () => {
    const searchIndex = (consecutiveFailures: number) => () => ({
      building: false,
      consecutiveFailures,
      lastError: consecutiveFailures > 0 ? 'out of memory' : null,
      nextBuildAt: consecutiveFailures > 0 ? Date.parse('2026-01-01T00:00:10Z') : null,
    })
    expect(bodyOf(healthy, {searchIndex: searchIndex(0)})).toMatchObject({
      status: 'ok',
      search_index: {building: false, consecutive_failures: 0, last_error: null, next_build_at: null},
    })
    expect(bodyOf(healthy, {searchIndex: searchIndex(2)})).toMatchObject({
      status: 'degraded',
      search_index: {consecutive_failures: 2, last_error: 'out of memory', next_build_at: '2026-01-01T00:00:10.000Z'},
    })
  })

  it('counts the request bodies in flight when told how', () => {
    expect(bodyOf(healthy, {requestBodiesInFlight: () => 3}).request_bodies_in_flight).toBe(3)
  })
})
