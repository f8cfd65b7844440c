import {describe, expect, it} from 'vitest'
import {withDeadline} from '../server/deadline.ts'

describe('withDeadline', () => {
  it('answers what the work answers when it settles in time, and its failure likewise', async () => {
    await expect(withDeadline(Promise.resolve(7), 1000, 'late')).resolves.toBe(7)
    await expect(withDeadline(Promise.reject(new Error('refused')), 1000, 'late')).rejects.toThrow('refused')
  })

  it('rejects with the given message once the time has passed, and drops a later failure', async () => {
    let fail: (error: Error) => void = () => undefined
    const work = new Promise<never>((_resolve, reject) => (fail = reject))
    await expect(withDeadline(work, 5, 'no answer within 5 ms')).rejects.toThrow('no answer within 5 ms')
    fail(new Error('too late'))
  })
})
