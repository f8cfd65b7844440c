// The event streams' bounds without sockets: a client that stops reading is dropped once its queue
// passes the bound (and frees its place), close() ends every stream and refuses new ones, and HEAD
// holds nothing open. Real snapshots of a tiny catalog; a response stand-in that can stall.
import {afterEach, beforeAll, describe, expect, it, vi} from 'vitest'
import {createEventStreams} from '../../server/http/event-streams.ts'
import {buildSnapshot, type Snapshot} from '../../server/snapshot/snapshot.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'
import {fakeRequest, fakeResponse} from '../helpers/fake-response.ts'

const NOW = new Date('2026-12-01T10:00:00Z')
const settings = snapshotSettings({site: () => [], feed: undefined, keying: undefined})
let first: Snapshot
let edits: Snapshot[]

beforeAll(async () => {
  first = buildSnapshot(await catalogOf([voice('v-1'), episode('ep-1', {title: 'ראשון'})]), settings, undefined, NOW)
  edits = []
  let previous = first
  for (let edit = 1; edit <= 40; edit++) {
    previous = buildSnapshot(
      await catalogOf([voice('v-1'), episode('ep-1', {title: `עריכה ${edit}`})]),
      settings,
      previous,
      NOW,
    )
    edits.push(previous)
  }
})

function streams(maxQueuedBytes = 1024) {
  let current = first
  const events = createEventStreams({
    current: () => current,
    publicBaseUrl: 'http://api.test',
    clientOf: () => '127.0.0.1',
    limits: {maxStreams: 100, maxQueuedBytes, heartbeatMs: 60_000, maxAgeMs: 40 * 60_000},
  })
  events.served(first)
  return {
    events,
    publish: (snapshot: Snapshot) => {
      current = snapshot
      events.served(snapshot)
    },
  }
}

describe('event streams', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('drop a client that stops reading once its queue passes the bound, and free its place', () => {
    const {events, publish: servedNext} = streams(1024)
    const reading = fakeResponse()
    const stalled = fakeResponse()
    events.handle(fakeRequest('GET', '/api/v1/events'), reading.response)
    events.handle(fakeRequest('GET', '/api/v1/events'), stalled.response)
    stalled.written.stalled = true
    for (const snapshot of edits) servedNext(snapshot)
    expect(stalled.written.destroyed).toBe(true)
    expect(stalled.written.chunks.join('').length).toBeLessThan(1024 + 400)
    expect(reading.written.destroyed).toBe(false)
    expect(reading.written.chunks.filter((chunk) => chunk.startsWith('id: '))).toHaveLength(edits.length)
    expect(events.count()).toBe(1)
  })

  it('end a stream within its age, after its heartbeats, even when its client stopped reading', () => {
    vi.useFakeTimers()
    const {events} = streams()
    const stalled = fakeResponse()
    events.handle(fakeRequest('GET', '/api/v1/events'), stalled.response)
    stalled.written.stalled = true
    // Three quarters of the age (30 minutes) at the least: heartbeats only, the stream open.
    vi.advanceTimersByTime(29 * 60_000)
    expect(stalled.written.chunks.filter((chunk) => chunk === ': heartbeat\n\n').length).toBeGreaterThan(20)
    expect(stalled.written.ended).toBe(false)
    // By the whole age (40 minutes) and a heartbeat, gone: its place is free, and its socket, which
    // a client that stopped reading would hold with an end never finished, goes too.
    vi.advanceTimersByTime(12 * 60_000)
    expect(stalled.written.destroyed).toBe(true)
    expect(events.count()).toBe(0)
  })

  it('end a stream whose client reads cleanly at its age, and let its socket go only if the end never finishes', () => {
    vi.useFakeTimers()
    const {events} = streams()
    const reading = fakeResponse()
    const full = fakeResponse()
    events.handle(fakeRequest('GET', '/api/v1/events'), reading.response)
    events.handle(fakeRequest('GET', '/api/v1/events'), full.response)
    full.written.endNeverFinishes = true
    vi.advanceTimersByTime(41 * 60_000)
    expect([reading.written.ended, full.written.ended]).toEqual([true, true])
    expect(events.count()).toBe(0)
    // A heartbeat later: the end that finished is left alone, the one that never did takes its socket.
    vi.advanceTimersByTime(60_000)
    expect([reading.written.destroyed, full.written.destroyed]).toEqual([false, true])
  })

  it('end every stream at close, and refuse the next with a 503', () => {
    const {events} = streams()
    const open = fakeResponse()
    events.handle(fakeRequest('GET', '/api/v1/events'), open.response)
    events.close()
    expect(open.written.ended).toBe(true)
    expect(events.count()).toBe(0)
    const late = fakeResponse()
    events.handle(fakeRequest('GET', '/api/v1/events'), late.response)
    expect(late.written.status).toBe(503)
  })

  it('answer HEAD with the head alone, holding nothing open', () => {
    const {events} = streams()
    const head = fakeResponse()
    events.handle(fakeRequest('HEAD', '/api/v1/events'), head.response)
    expect(head.written).toMatchObject({status: 200, ended: true})
    expect(events.count()).toBe(0)
  })
})
