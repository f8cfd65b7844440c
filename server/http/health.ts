import type {RequestHandler} from 'express'
import type {StoreStatus} from '../snapshot/store.ts'
import {buildProblem, sendProblem} from './problem.ts'

/** For load balancers and orchestrators: never rate limited, logged per request or cached. */
export const LIVENESS_PATH = '/healthz'
export const READINESS_PATH = '/readyz'
export const HEALTH_PATHS: readonly string[] = [LIVENESS_PATH, READINESS_PATH]

/** Whether this replica should get traffic; when not, why, in words an operator can act on. */
export type Readiness = {ready: true} | {ready: false; detail: string}

/** `GET /healthz`: the process answers. A failing one should be restarted, not just taken out of rotation. */
export const livenessHandler: RequestHandler = (_request, response) => {
  response.set('Cache-Control', 'no-store').json({status: 'ok'})
}

/** `GET /readyz`: 200 while `ready()` says so, else a 503 problem; the load balancer then sends traffic elsewhere. */
export function readinessHandler(ready: () => Readiness, publicBaseUrl: string): RequestHandler {
  return (request, response) => {
    const readiness = ready()
    if (readiness.ready) response.set('Cache-Control', 'no-store').json({status: 'ready'})
    else sendProblem(request, response, buildProblem(publicBaseUrl, 503, readiness.detail, request.originalUrl))
  }
}

/** Not ready while the first read is held, or while only a snapshot saved by other code is served. */
export function savedSnapshotReadiness(saved: StoreStatus['saved']): Readiness {
  if (saved?.firstRead === 'held')
    return {
      ready: false,
      detail:
        'The first read of the source is held by the mass-deletion guard (it would drop most of the catalog); the saved snapshot is served meanwhile. See /status.',
    }
  if (saved?.behindEdge && saved.firstRead !== 'done' && saved.savedAt)
    return {
      ready: false,
      detail:
        'The source has not been read yet, and the saved snapshot served meanwhile is older than what the CDN was last told; the source is retried. See /status.',
    }
  if (saved?.otherCode && saved.firstRead !== 'done')
    return {
      ready: false,
      detail:
        'The source has not been read yet, and the saved snapshot served meanwhile was written by other code (an earlier deploy); the source is retried. See /status.',
    }
  return {ready: true}
}
