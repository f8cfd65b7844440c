// Unit: the Podping announcer with a stand-in for the call (no socket) and vitest's fake timers for
// the coalescing window and the retry schedule.
import pino from 'pino'
import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {createPodpingAnnouncer, type PodpingSettings} from '../../server/feed/podping.ts'
import type {ServiceAnswer, ServiceRequest} from '../../server/outbound/service-call.ts'

const FEED = 'https://podcast.example/feed.xml'
const TOKEN = 'Blahblah^^12345678'

interface Call {
  at: number
  url: URL
  request: ServiceRequest
}

let calls: Call[]
let logLines: {level: number; msg: string}[]
/** What the stand-in answers, in order; the last one for every further call. */
let answers: (number | Error)[]
let started: number

beforeEach(() => {
  vi.useFakeTimers()
  started = Date.now()
  calls = []
  logLines = []
  answers = [200]
})
afterEach(() => {
  vi.useRealTimers()
})

function announcer(settings: Partial<PodpingSettings> = {}) {
  const log = pino({level: 'info'}, {write: (line: string) => void logLines.push(JSON.parse(line))})
  return createPodpingAnnouncer({
    url: 'https://podping.cloud/',
    token: TOKEN,
    feedUrl: FEED,
    log,
    send: async (url, request): Promise<ServiceAnswer> => {
      calls.push({at: Date.now() - started, url, request})
      const answer = answers.length > 1 ? answers.shift() : answers[0]
      if (answer instanceof Error) throw answer
      return {status: answer ?? 200, headers: {}, text: answer === 200 ? 'Success!' : 'Internal Server Error'}
    },
    ...settings,
  })
}

const warnings = () => logLines.filter((line) => line.level === 40)

describe('Podping announcer', () => {
  it('announces nothing for the feed it started with, nor for an unchanged one', async () => {
    const podping = announcer()
    podping.observe('"a"')
    podping.observe('"a"')
    podping.observe(undefined)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(calls).toEqual([])
  })

  it('announces a changed feed once, a second after the change, with the query and headers podping.cloud reads', async () => {
    const podping = announcer()
    podping.observe('"a"')
    podping.observe('"b"')
    await vi.advanceTimersByTimeAsync(999)
    expect(calls).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(calls).toHaveLength(1)
    const [call] = calls
    expect(call?.url.href.split('?')[0]).toBe('https://podping.cloud/')
    expect(Object.fromEntries(call?.url.searchParams ?? [])).toEqual({url: FEED, reason: 'update', medium: 'podcast'})
    expect(call?.request.method).toBe('GET')
    expect(call?.request.headers?.['authorization']).toBe(TOKEN)
    expect(call?.request.headers?.['user-agent']).toMatch(/^podcast-catalog-api\/\d+\.\d+\.\d+/)
    expect(podping.status()).toMatchObject({consecutiveFailures: 0, counts: {announced: 1, retried: 0, given_up: 0}})
    expect(podping.status().lastAnnouncedAt).toEqual(new Date(started + 1000))
  })

  it('makes one announcement of a burst of changes', async () => {
    const podping = announcer()
    podping.observe('"a"')
    podping.observe('"b"')
    await vi.advanceTimersByTimeAsync(300)
    podping.observe('"c"')
    await vi.advanceTimersByTimeAsync(300)
    podping.observe('"d"')
    await vi.advanceTimersByTimeAsync(10_000)
    expect(calls.map((call) => call.at)).toEqual([1000])
  })

  it('retries a failed announcement after 1, 2 and 4 s, and shows the failures until Podping takes it', async () => {
    answers = [500, new Error('connect ECONNREFUSED 127.0.0.1:9'), 503, 200]
    const podping = announcer()
    podping.observe('"a"')
    podping.observe('"b"')
    await vi.advanceTimersByTimeAsync(1000)
    expect(podping.status()).toMatchObject({
      consecutiveFailures: 1,
      lastError: 'Podping (https://podping.cloud/) answered 500: Internal Server Error',
      lastAnnouncedAt: undefined,
    })
    await vi.advanceTimersByTimeAsync(3000)
    expect(podping.status()).toMatchObject({consecutiveFailures: 3, lastError: expect.stringContaining('503')})
    await vi.advanceTimersByTimeAsync(4000)
    expect(calls.map((call) => call.at)).toEqual([1000, 2000, 4000, 8000])
    expect(podping.status()).toMatchObject({
      consecutiveFailures: 0,
      lastAnnouncedAt: new Date(started + 8000),
      lastErrorAt: new Date(started + 4000),
      counts: {announced: 1, retried: 3, given_up: 0},
    })
    // One warning for the run of failures, not one per attempt; its end is told at info.
    expect(warnings()).toHaveLength(1)
    expect(warnings()[0]?.msg).toContain('answered 500')
    expect(JSON.stringify(logLines)).not.toContain(TOKEN)
    expect(logLines.at(-1)?.msg).toContain('takes announcements again, after 3 failed attempts')
  })

  it('gives up after four attempts, and announces the next change afresh, still with one warning for the run', async () => {
    answers = [500]
    const podping = announcer()
    podping.observe('"a"')
    podping.observe('"b"')
    await vi.advanceTimersByTimeAsync(60_000)
    expect(calls.map((call) => call.at)).toEqual([1000, 2000, 4000, 8000])
    expect(podping.status()).toMatchObject({consecutiveFailures: 4, counts: {announced: 0, retried: 3, given_up: 1}})
    answers = [200]
    podping.observe('"c"')
    await vi.advanceTimersByTimeAsync(1000)
    expect(calls).toHaveLength(5)
    expect(podping.status()).toMatchObject({consecutiveFailures: 0, counts: {announced: 1, retried: 3, given_up: 1}})
    expect(warnings()).toHaveLength(1)
  })

  it('lets a change during a retry delay ride on the retry, and announces one made during a call once more after it', async () => {
    answers = [500, 500, 200]
    const podping = announcer()
    podping.observe('"a"')
    podping.observe('"b"')
    await vi.advanceTimersByTimeAsync(2500) // two attempts failed; the next is due at 4000
    podping.observe('"c"')
    await vi.advanceTimersByTimeAsync(10_000)
    expect(calls.map((call) => call.at)).toEqual([1000, 2000, 4000])

    let answer: (status: number) => void = () => undefined
    const held = announcer({
      send: (url, request) => {
        calls.push({at: Date.now() - started, url, request})
        return new Promise((resolve) => (answer = (status) => resolve({status, headers: {}, text: ''})))
      },
    })
    calls = []
    held.observe('"a"')
    held.observe('"b"')
    await vi.advanceTimersByTimeAsync(1000)
    expect(calls).toHaveLength(1)
    held.observe('"c"') // while Podping has not answered: an app may have read the feed before it
    held.observe('"d"')
    answer(200)
    await vi.advanceTimersByTimeAsync(0)
    expect(calls).toHaveLength(2)
    answer(200)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(calls).toHaveLength(2)
    expect(held.status().counts.announced).toBe(2)
  })
})
