// A client of GET /api/v1/events over a raw socket: the stream's status and the text received so
// far, and the events read out of it.
import {request, type IncomingMessage} from 'node:http'
import {z} from 'zod'

/** An open event stream: its status, and the text received so far. */
export interface EventListener {
  status: number
  text: () => string
  close: () => void
  ended: Promise<void>
}

export function listenToEvents(base: string, headers: Record<string, string> = {}): Promise<EventListener> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}/api/v1/events`, {headers}, (response: IncomingMessage) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      const ended = new Promise<void>((done) => response.on('close', () => done()))
      resolve({status: response.statusCode ?? 0, text: () => text, close: () => outgoing.destroy(), ended})
    })
    outgoing.on('error', reject).end()
  })
}

export const eventSchema = z.object({
  version: z.string(),
  changes: z.array(z.object({type: z.enum(['episode', 'meetup', 'voice']), slug: z.string(), deleted: z.boolean()})),
})

/** The `id` and data of each event in the text (comments and the retry line left out). */
export const eventsIn = (text: string) =>
  text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => ({
      event: /^event: (.*)$/m.exec(block)?.[1] ?? 'message',
      id: /^id: (.*)$/m.exec(block)?.[1],
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') as unknown,
    }))
