import {z} from 'zod'

/** The show's time zone: release times are typed, and dates are named, in Israel time. */
export const RELEASE_TIME_ZONE = 'Asia/Jerusalem'

/**
 * `publishedAt` as Sanity stores it: a date-time with an offset (the datetime field; an API edit
 * or an import may leave out the seconds, as ISO 8601 allows: `2026-12-01T21:47Z`), or a plain
 * date (`2026-01-07`), written before episodes had release times. Served in one form whatever was
 * written (releaseFieldsOf).
 */
export const releaseTimeRowSchema = z.union([
  z.iso.date(),
  z.iso.datetime({offset: true}),
  z.iso.datetime({offset: true, precision: -1}),
])

const israelDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: RELEASE_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})
const israelOffset = new Intl.DateTimeFormat('en-US', {timeZone: RELEASE_TIME_ZONE, timeZoneName: 'longOffset'})

/** Israel's offset from UTC at an instant, in ms (`GMT+03:00` is 10,800,000). */
function offsetMsAt(epochMs: number): number {
  const name = israelOffset.formatToParts(epochMs).find((part) => part.type === 'timeZoneName')?.value ?? ''
  const [, sign, hours, minutes] = /^GMT([+-])(\d\d):(\d\d)$/.exec(name) ?? []
  if (!sign || !hours || !minutes) return 0 // "GMT": UTC itself
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes)) * 60_000
}

/**
 * The instant an episode is released. A plain date is 00:00 Israel time that day (Israel's clocks
 * change at 02:00, so midnight always exists and the offset at it is the day's first).
 */
export function releaseInstant(value: string): Date {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return new Date(value)
  const midnightUtc = Date.parse(`${value}T00:00:00Z`)
  const guess = midnightUtc - offsetMsAt(midnightUtc)
  return new Date(midnightUtc - offsetMsAt(guess))
}

/** `published_at` (UTC, RFC 3339, so strings sort as instants do) and `published_date` (the day in Israel). */
export function releaseFieldsOf(value: string): {published_at: string; published_date: string} {
  const instant = releaseInstant(value)
  return {published_at: instant.toISOString(), published_date: israelDate.format(instant)}
}
