import {describe, expect, it} from 'vitest'
import {backoffDelay} from '../server/backoff.ts'

describe('backoffDelay', () => {
  it('starts at the first delay and doubles for each further retry', () => {
    expect([1, 2, 3, 4].map((retry) => backoffDelay(retry, 1000))).toEqual([1000, 2000, 4000, 8000])
  })

  it('stops at the ceiling', () => {
    expect([6, 7, 20].map((retry) => backoffDelay(retry, 1000, 60_000))).toEqual([32_000, 60_000, 60_000])
  })
})
