import express, {type ErrorRequestHandler, type RequestHandler} from 'express'
import {createCatalogHandler} from './api/v1/router.ts'
import {buildProblem, sendProblem} from './http/problem.ts'
import type {SnapshotStore} from './snapshot/store.ts'

export interface AppDependencies {
  store: SnapshotStore
  config: {publicBaseUrl: string}
  /** Where unexpected errors are reported; the client only ever sees a problem document. */
  logError?: (error: unknown) => void
}

/** The HTTP application. No side effects: it neither reads the environment nor listens. */
export function createApp({store, config, logError = console.error}: AppDependencies): express.Express {
  const {publicBaseUrl} = config
  const app = express()
  app.disable('x-powered-by')
  app.disable('etag') // representations carry their own strong ETags
  app.set('case sensitive routing', true)
  app.set('strict routing', true)
  app.set('query parser', false) // only the list handler reads the query, with URLSearchParams

  const problem = (status: 400 | 404 | 405 | 500, detail: string, instance: string) => buildProblem(publicBaseUrl, status, detail, instance)

  const rejectMalformedUrl: RequestHandler = (request, response, next) => {
    try {
      decodeURIComponent(request.originalUrl)
    } catch {
      return sendProblem(request, response, problem(400, 'The request URL has malformed percent-encoding.', request.path))
    }
    next()
  }

  const readOnly: RequestHandler = (request, response, next) => {
    if (request.method === 'GET' || request.method === 'HEAD') return next()
    sendProblem(request, response, problem(405, `The API is read-only: ${request.method} is not supported. Retry as GET or HEAD.`, request.originalUrl), {
      Allow: 'GET, HEAD',
    })
  }

  const catalog = createCatalogHandler(store, publicBaseUrl)
  const catalogRoute: RequestHandler = (request, response) => {
    const queryStart = request.url.indexOf('?')
    const query = queryStart === -1 ? '' : request.url.slice(queryStart + 1)
    catalog(request, response, {path: request.path, query, instance: request.originalUrl})
  }

  const notFound: RequestHandler = (request, response) =>
    sendProblem(request, response, problem(404, `No such path. The API starts at ${publicBaseUrl}/api/v1/index.json.`, request.originalUrl))

  const internalError: ErrorRequestHandler = (error, request, response, next) => {
    if (response.headersSent) return next(error)
    logError(error)
    sendProblem(request, response, problem(500, 'The server failed to answer. The payload is static, so a retry with backoff is safe.', request.originalUrl))
  }

  app.use(rejectMalformedUrl)
  app.use(readOnly)
  app.use('/api/v1', catalogRoute)
  app.use(notFound)
  app.use(internalError)
  return app
}
