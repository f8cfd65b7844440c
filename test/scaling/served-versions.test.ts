import {afterEach, describe, expect, it} from 'vitest'
import type {Logger} from 'pino'
import {createServedVersions, type ServedVersions, type VersionHash} from '../../server/scaling/served-versions.ts'
import {recordingLogger} from '../helpers/log-lines.ts'

/** A Redis hash in memory, with a switch to make it fail as an unreachable Redis does. */
function memoryHash() {
  const fields = new Map<string, string>()
  let failing = false
  let hung = false
  const hash: VersionHash = {
    hSet: async (_key, field, value) => {
      if (failing) throw new Error('Redis is away')
      fields.set(field, value)
    },
    hGetAll: async () => {
      if (failing) throw new Error('Redis is away')
      if (hung) return new Promise<never>(() => undefined) // written, never answered: a Redis under SIGSTOP
      return Object.fromEntries(fields)
    },
    hDel: async (_key, names) => {
      for (const name of names) fields.delete(name)
    },
  }
  return {hash, fields, fail: () => (failing = true), hang: () => (hung = true)}
}

const opened: ServedVersions[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((replica) => replica.close()))
})

function replica(
  hash: VersionHash,
  replicaId: string,
  options: {
    maxWaitMs?: number
    commandTimeoutMs?: number
    logger?: Logger
  } = {},
) {
  const served = createServedVersions({
    hash,
    key: 'served',
    replicaId,
    heartbeatMs: 1_000,
    pollMs: 5,
    maxWaitMs: options.maxWaitMs ?? 2_000,
    ...options,
  })
  opened.push(served)
  return served
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('served versions across replicas', () => {
  it('agree at once when every replica serves the version', async () => {
    const {hash} = memoryHash()
    const [a, b] = [replica(hash, 'a'), replica(hash, 'b')]
    a.serving('v2')
    b.serving('v2')
    await settle()
    expect(await a.allServe('v2')).toBe(true)
  })

  it('wait for a lagging replica, and agree as soon as it serves the version', async () => {
    const {hash} = memoryHash()
    const [a, b] = [replica(hash, 'a'), replica(hash, 'b')]
    a.serving('v2')
    b.serving('v1')
    await settle()
    let agreed = false
    const waiting = a.allServe('v2').then((answer) => (agreed = answer))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(agreed).toBe(false)
    b.serving('v2')
    expect(await waiting).toBe(true)
  })

  it('give up after the longest wait, naming the replicas that lag', async () => {
    const {hash} = memoryHash()
    const {logger, messages} = recordingLogger()
    const a = replica(hash, 'a', {maxWaitMs: 40, logger})
    replica(hash, 'b').serving('v1')
    a.serving('v2')
    await settle()
    expect(await a.allServe('v2')).toBe(false)
    expect(messages('warn')).toEqual(['CDN purge for version v2 sent after waiting 0.04 s for b to serve it'])
  })

  it('forget a replica silent for three heartbeats, which then holds nothing back', async () => {
    const {hash, fields} = memoryHash()
    const a = replica(hash, 'a')
    a.serving('v2')
    fields.set('crashed', `v1 ${Date.now() - 3_001}`) // last heard from just over three heartbeats ago
    fields.set('garbled', 'no-time-here')
    await settle()
    expect(await a.allServe('v2')).toBe(true)
    expect([...fields.keys()]).toEqual(['a'])
    fields.set('quiet', `v1 ${Date.now() - 2_000}`) // two heartbeats: still counted, still lagging
    expect(await replica(hash, 'c', {maxWaitMs: 20}).allServe('v2')).toBe(false)
  })

  it('let the purge go when Redis cannot tell, as a lone replica would', async () => {
    const {hash, fail} = memoryHash()
    const a = replica(hash, 'a')
    a.serving('v2')
    fail()
    expect(await a.allServe('v2')).toBe(false)
  })

  it('take a heartbeat from further ahead than the clock-skew bound for a wrong clock, not a live replica', async () => {
    const {hash, fields} = memoryHash()
    const a = replica(hash, 'a', {maxWaitMs: 1_000})
    a.serving('v2')
    fields.set('skewed', `v1 ${Date.now() + 600_000}`) // ten minutes in the future
    await settle()
    // Taken for a live replica, it would lag until maxWaitMs and allServe would answer false.
    expect(await a.allServe('v2')).toBe(true)
    expect(fields.has('skewed')).toBe(false)
    fields.set('slightly-ahead', `v1 ${Date.now() + 1_000}`) // within the bound: still a live replica, still lagging
    expect(await replica(hash, 'c', {maxWaitMs: 20}).allServe('v2')).toBe(false)
  })

  it('stop waiting for a Redis that hangs once the command deadline passes, and say so', async () => {
    const {hash, hang} = memoryHash()
    const {logger, lines} = recordingLogger()
    const a = replica(hash, 'a', {maxWaitMs: 10_000, commandTimeoutMs: 200, logger})
    a.serving('v2')
    hang()
    // Given up by the 200 ms command deadline, as the error says, not by the 10 s wait (a hang that
    // nothing gives up on fails the test by its timeout).
    expect(await a.allServe('v2')).toBe(false)
    expect(lines.map((line) => `${line.msg}: ${line.err?.message}`)).toEqual([
      'could not ask the replicas whether they serve version v2; purging as a lone replica would: Redis did not answer within 200 ms',
    ])
  })

  it('take a replica out of the hash when it closes', async () => {
    const {hash, fields} = memoryHash()
    const a = createServedVersions({hash, key: 'served', replicaId: 'a'})
    a.serving('v1')
    await settle()
    expect(fields.has('a')).toBe(true)
    await a.close()
    expect(fields.has('a')).toBe(false)
  })
})
