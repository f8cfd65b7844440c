import type {RequestHandler} from 'express'
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
