import {describe, expect, it} from 'vitest'
import {checkReleaseTime, releaseSubtitle} from '../../catalog/editor-rules/release-time.ts'
import {releaseTimePreview} from '../../schemas/release-time.ts'

const NOW = new Date('2027-05-31T12:00:00Z')

describe("the Studio's release time", () => {
  it('marks an episode whose release time is ahead "מתוזמן", with its time in Israel time', () => {
    expect(releaseSubtitle('2027-06-01T06:00:00.000Z', NOW)).toBe('מתוזמן · 1.6.2027, 9:00')
    expect(releaseSubtitle('2027-05-01T06:00:00.000Z', NOW)).toBe('1.5.2027, 9:00')
    // A date from before release times: 00:00 Israel time that day.
    expect(releaseSubtitle('2025-02-01', NOW)).toBe('1.2.2025, 0:00')
    expect(releaseSubtitle(undefined, NOW)).toBeUndefined()
  })

  it("gives the episode list's line the mark while the time is ahead", () => {
    const line = releaseTimePreview.prepare?.(
      {title: 'פרק', publishedAt: '2099-01-01T08:30:00.000Z', media: undefined},
      undefined,
    )
    expect(line).toMatchObject({title: 'פרק', subtitle: 'מתוזמן · 1.1.2099, 10:30'})
  })

  it('refuses, in Hebrew, a value that is neither a date-time nor a date', () => {
    expect(checkReleaseTime('2027-06-01T06:00:00.000Z')).toBe(true)
    expect(checkReleaseTime('2025-02-01')).toBe(true)
    // Without seconds, as ISO 8601 allows: the server takes it too (catalog/v1/release-time.ts).
    expect(checkReleaseTime('2026-12-01T21:47Z')).toBe(true)
    expect(checkReleaseTime('2026-12-01T23:47+02:00')).toBe(true)
    expect(checkReleaseTime('2026-13-01T00:00:00Z')).toMatch(/מועד הפרסום/)
    expect(checkReleaseTime('07/01/2026')).toMatch(/מועד הפרסום/)
  })
})
