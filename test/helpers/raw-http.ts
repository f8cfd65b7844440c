import {request, type Agent} from 'node:http'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The bytes on the wire, still in their content coding (fetch would decode them). */
  body: Buffer
}

/** One HTTP/1.1 request with exactly the given headers; the response body is read as sent. */
export function rawRequest(
  url: string,
  options: {method?: string; headers?: Record<string, string>; body?: string; agent?: Agent} = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false},
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks)}),
        )
        response.on('error', reject)
      },
    )
    outgoing.on('error', reject)
    outgoing.end(options.body)
  })
}
