import type {FetchFunction} from '../../client/src/index.ts'

/** A request the client made, as its fetch saw it. */
export interface SeenRequest {
  url: string
  headers: Record<string, string>
}

/**
 * The typed client's fetch seam, for tests without sockets: each request is recorded, and `answer`
 * says what the server would send back.
 */
export function scriptedFetch(answer: (request: SeenRequest) => Response): {
  fetch: FetchFunction
  requests: SeenRequest[]
} {
  const requests: SeenRequest[] = []
  return {
    requests,
    fetch: async (url, init) => {
      const request = {url, headers: init.headers}
      requests.push(request)
      return answer(request)
    },
  }
}

export const jsonAnswer = (body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {status: 200, headers: {'content-type': 'application/json', ...headers}})

export const problemAnswer = (status: number, title: string, detail: string) =>
  new Response(JSON.stringify({type: `http://api.test/docs#errors-${String(status)}`, title, status, detail}), {
    status,
    headers: {'content-type': 'application/problem+json'},
  })
