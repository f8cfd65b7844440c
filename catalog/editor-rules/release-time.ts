import {RELEASE_TIME_ZONE, releaseInstant, releaseTimeRowSchema} from '../v1/release-time.ts'

// How the Studio speaks of an episode's release time: in Israel time, as the editors schedule it.

const israelTime = new Intl.DateTimeFormat('he-IL', {
  timeZone: RELEASE_TIME_ZONE,
  dateStyle: 'short',
  timeStyle: 'short',
})

/** A `publishedAt` in Israel time, such as "1.6.2027, 9:00"; undefined when it is not a release time. */
function israelTimeOf(publishedAt: unknown): string | undefined {
  const parsed = releaseTimeRowSchema.safeParse(publishedAt)
  return parsed.success ? israelTime.format(releaseInstant(parsed.data)) : undefined
}

/** Whether `publishedAt` is still ahead of `now`: the server holds such an episode back until then. */
function isScheduled(publishedAt: unknown, now: Date = new Date()): boolean {
  const parsed = releaseTimeRowSchema.safeParse(publishedAt)
  return parsed.success && releaseInstant(parsed.data).getTime() > now.getTime()
}

/** The list's subtitle: the release time, marked "מתוזמן" while it is ahead. */
export function releaseSubtitle(publishedAt: unknown, now: Date = new Date()): string | undefined {
  const time = israelTimeOf(publishedAt)
  if (time === undefined) return undefined
  return isScheduled(publishedAt, now) ? `מתוזמן · ${time}` : time
}

/** What the API and feed views show instead of an item the server still holds back. */
export function scheduledNotice(publishedAt: unknown, now: Date = new Date()): string | undefined {
  return isScheduled(publishedAt, now) ? `ייצא לאוויר ב-${israelTimeOf(publishedAt) ?? ''} (שעון ישראל)` : undefined
}

/** A release time the server can read: a date-time, or a date from before release times existed. */
export function checkReleaseTime(value: string | undefined): true | string {
  return value === undefined || releaseTimeRowSchema.safeParse(value).success
    ? true
    : 'מועד הפרסום צריך להיות תאריך ושעה (ISO 8601).'
}
