// Release times as the API gives them: the instant in UTC and the day in Israel, for date-times and
// for the plain dates written before episodes had release times, on both sides of Israel's clock changes.
import {describe, expect, it} from 'vitest'
import {releaseFieldsOf, releaseInstant, releaseTimeRowSchema} from '../../../catalog/v1/release-time.ts'

describe('releaseFieldsOf', () => {
  it('reads a plain date as 00:00 Israel time that day, in winter (+02:00) and in summer (+03:00)', () => {
    expect(releaseFieldsOf('2026-01-07')).toEqual({
      published_at: '2026-01-06T22:00:00.000Z',
      published_date: '2026-01-07',
    })
    expect(releaseFieldsOf('2026-07-07')).toEqual({
      published_at: '2026-07-06T21:00:00.000Z',
      published_date: '2026-07-07',
    })
  })

  it("takes the offset at the day's own midnight on the days the clocks change", () => {
    // The clocks go forward at 02:00 on 27 March 2026: that midnight is still +02:00, the next one +03:00.
    expect(releaseFieldsOf('2026-03-27').published_at).toBe('2026-03-26T22:00:00.000Z')
    expect(releaseFieldsOf('2026-03-28').published_at).toBe('2026-03-27T21:00:00.000Z')
    // They go back at 02:00 on 25 October 2026: that midnight is still +03:00.
    expect(releaseFieldsOf('2026-10-25').published_at).toBe('2026-10-24T21:00:00.000Z')
    expect(releaseFieldsOf('2026-10-26').published_at).toBe('2026-10-25T22:00:00.000Z')
  })

  it('keeps a date-time as the instant it names, and names its day in Israel, not in UTC', () => {
    expect(releaseFieldsOf('2026-07-01T09:00:00+03:00')).toEqual({
      published_at: '2026-07-01T06:00:00.000Z',
      published_date: '2026-07-01',
    })
    expect(releaseFieldsOf('2026-01-07T23:30:00Z')).toEqual({
      published_at: '2026-01-07T23:30:00.000Z',
      published_date: '2026-01-08',
    })
    expect(releaseInstant('2026-01-07T21:59:59.000Z').toISOString()).toBe('2026-01-07T21:59:59.000Z')
  })
})

describe('releaseTimeRowSchema', () => {
  it('takes a date or a date-time with an offset, and nothing else', () => {
    for (const value of ['2026-01-07', '2026-01-07T06:00:00.000Z', '2026-01-07T08:00:00+02:00'])
      expect(releaseTimeRowSchema.safeParse(value).success, value).toBe(true)
    for (const value of ['07/01/2026', '2026-01-07T06:00:00', 'soon', ''])
      expect(releaseTimeRowSchema.safeParse(value).success, value).toBe(false)
  })

  it('takes a date-time without seconds, as ISO 8601 allows, and serves it in the one full form', () => {
    for (const value of ['2026-12-01T21:47Z', '2026-12-01T23:47+02:00'])
      expect(releaseTimeRowSchema.safeParse(value).success, value).toBe(true)
    expect(releaseFieldsOf('2026-12-01T21:47Z')).toEqual({
      published_at: '2026-12-01T21:47:00.000Z',
      published_date: '2026-12-01',
    })
    expect(releaseFieldsOf('2026-12-01T23:47+02:00').published_at).toBe('2026-12-01T21:47:00.000Z')
    // A month or an hour that does not exist, a missing offset, or hours alone are still refused.
    for (const value of ['2026-13-01T00:00:00Z', '2026-12-01T24:00Z', '2026-12-01T21:47', '2026-12-01T21Z'])
      expect(releaseTimeRowSchema.safeParse(value).success, value).toBe(false)
  })
})
