import {rruleProblem} from '../v1/rrule.ts'
import {checkFetchedUrl, type Verdict} from './validation.ts'

// The Studio's checks of the channel tags, in Hebrew: the same rules the server applies when it
// leaves a tag out of the feed (catalog/v1/channel-tags.ts), said before the editor publishes.

export const MEDIUM_CHOICES = [
  {title: 'פודקאסט (ברירת המחדל)', value: 'podcast'},
  {title: 'מוזיקה', value: 'music'},
  {title: 'וידאו', value: 'video'},
  {title: 'סרט', value: 'film'},
  {title: 'ספר שמע', value: 'audiobook'},
  {title: 'ניוזלטר', value: 'newsletter'},
  {title: 'בלוג', value: 'blog'},
  {title: 'מו"ל (publisher)', value: 'publisher'},
  {title: 'קורס', value: 'course'},
]

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** An RFC 5545 recurrence rule, as podcast:updateFrequency's `rrule` takes it. */
export function checkRrule(rule: string | undefined): Verdict {
  if (!rule?.trim()) return true
  return rruleProblem(rule.trim()) === undefined
    ? true
    : 'כלל חזרה לפי RFC 5545, למשל FREQ=WEEKLY;INTERVAL=2 (כל שבועיים) או FREQ=MONTHLY.'
}

/** The namespace needs a start date for a rule with COUNT. */
export function checkRuleStart(frequency: {rrule?: string; start?: string} | undefined): Verdict {
  return frequency?.rrule && /(?:^|;)COUNT=/.test(frequency.rrule) && !frequency.start
    ? 'כלל עם COUNT צריך תאריך התחלה.'
    : true
}

/** A show in the podroll: its podcast:guid, its feed's address, or both. */
export function checkRemoteShow(show: {feedGuid?: string; feedUrl?: string} | undefined): Verdict {
  if (!show) return true
  if (!show.feedGuid?.trim() && !show.feedUrl?.trim()) return 'מזהה הפיד (podcast:guid) או כתובת הפיד.'
  if (show.feedGuid?.trim() && !UUID.test(show.feedGuid.trim()))
    return 'מזהה הפיד הוא UUID, כמו ב-podcast:guid של התוכנית.'
  return checkFetchedUrl(show.feedUrl?.trim() || undefined, 'כתובת הפיד')
}
