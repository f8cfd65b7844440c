import {ALTERNATE_TITLE_MAX_CHARACTERS, SOUNDBITE_MAX_SECONDS, SOUNDBITE_MIN_SECONDS} from '../v1/contract.ts'
import {alternateEnclosureFaults, MAX_ALTERNATE_ENCLOSURES, type AlternateFault} from '../v1/alternate-enclosures.ts'
import {
  KNOWN_LICENSES,
  LICENSE_IDENTIFIER_PATTERN,
  LICENSE_MAX_CHARACTERS,
  licenseFaults,
  type LicenseFault,
} from '../v1/license.ts'
import {SEASON_NAME_MAX_CHARACTERS, seasonNameFault} from '../v1/season.ts'
import {
  formatSoundbiteTime,
  MAX_SOUNDBITES,
  SOUNDBITE_TITLE_MAX_CHARACTERS,
  soundbiteFaults,
  type SoundbiteFault,
} from '../v1/soundbites.ts'
import type {Verdict} from './validation.ts'

// The Podcasting 2.0 tags an editor sets on an episode (soundbites, the season's name, a license,
// other versions of the media) and the show's license, in the Studio: the server's rules
// (catalog/v1/soundbites.ts, season.ts, license.ts, alternate-enclosures.ts) worded in Hebrew.
// What breaks a rule here is what the server leaves out of the API and the feed.

const durationOf = (duration: unknown) => (typeof duration === 'number' && duration > 0 ? duration : null)

function soundbiteMessage(fault: SoundbiteFault): string {
  switch (fault.kind) {
    case 'not-a-soundbite':
      return 'אינו קטע: חסרים בו התחלה ואורך.'
    case 'start':
      return 'ההתחלה היא מספר השניות מתחילת הפרק, 0 או יותר.'
    case 'duration':
      return fault.seconds === null
        ? `חסר אורך: ${SOUNDBITE_MIN_SECONDS} עד ${SOUNDBITE_MAX_SECONDS} שניות.`
        : `אורך הקטע ${fault.seconds} שניות; הוא בין ${SOUNDBITE_MIN_SECONDS} ל-${SOUNDBITE_MAX_SECONDS} שניות.`
    case 'past-duration':
      return `הקטע נגמר ב-${formatSoundbiteTime(fault.end)}, אחרי סוף הפרק (${formatSoundbiteTime(fault.duration)}).`
    case 'title-too-long':
      return `הכותרת ארוכה מדי: ${fault.length} תווים; לכל היותר ${SOUNDBITE_TITLE_MAX_CHARACTERS}.`
  }
}

const tooManySoundbites = (count: number) => `יש ${count} קטעים נבחרים; לכל היותר ${MAX_SOUNDBITES}.`

/** The soundbites as a whole: each one's faults, named by its place in the list, within the episode's duration. */
export function checkSoundbites(soundbites: readonly unknown[] | undefined, duration: unknown): Verdict {
  if (!soundbites || soundbites.length === 0) return true
  if (soundbites.length > MAX_SOUNDBITES) return tooManySoundbites(soundbites.length)
  const messages = soundbites.flatMap((soundbite, index) =>
    soundbiteFaults(soundbite, durationOf(duration)).map((fault) => `קטע ${index + 1}: ${soundbiteMessage(fault)}`),
  )
  return messages.length === 0 ? true : messages.join(' ')
}

/**
 * Why one more soundbite may not join the `existing` ones, in the words checkSoundbites gives the
 * list (without its place in it), or undefined when the server would serve it.
 */
export function soundbiteRefusal(soundbite: unknown, existing: number, duration: unknown): string | undefined {
  if (existing + 1 > MAX_SOUNDBITES) return tooManySoundbites(existing + 1)
  const messages = soundbiteFaults(soundbite, durationOf(duration)).map(soundbiteMessage)
  return messages.length === 0 ? undefined : messages.join(' ')
}

/** A season's name goes with a season number, and stays within the namespace's 128 characters. */
export function checkSeasonName(name: string | undefined, season: unknown): Verdict {
  const fault = seasonNameFault(name, season)
  if (!fault) return true
  return fault.kind === 'too-long'
    ? `שם העונה ארוך מדי: ${fault.length} תווים; לכל היותר ${SEASON_NAME_MAX_CHARACTERS}.`
    : 'לשם עונה צריך מספר עונה: מלאו את השדה "עונה".'
}

/** The identifiers the Studio lists, for the license field's description. */
export const KNOWN_LICENSE_LIST = KNOWN_LICENSES.join(', ')

function licenseMessage(fault: LicenseFault): string {
  switch (fault.kind) {
    case 'not-a-license':
      return 'אינו רישיון: מזהה וקישור.'
    case 'identifier-missing':
      return 'חסר מזהה הרישיון, למשל cc-by-4.0.'
    case 'identifier-form':
      return LICENSE_IDENTIFIER_PATTERN.test(fault.identifier.toLowerCase())
        ? `מזהה הרישיון נכתב באותיות קטנות: "${fault.identifier.toLowerCase()}".`
        : `"${fault.identifier}" אינו מזהה רישיון: אותיות לטיניות קטנות, ספרות, נקודה, מקף ו-+, למשל cc-by-4.0.`
    case 'too-long':
      return `מזהה הרישיון ארוך מדי: ${fault.length} תווים; לכל היותר ${LICENSE_MAX_CHARACTERS}.`
    case 'unknown-without-url':
      return `"${fault.identifier}" אינו רישיון מוכר (${KNOWN_LICENSE_LIST}). לרישיון אחר צריך קישור לנוסח המלא שלו.`
    case 'url':
      return 'הקישור לרישיון מתחיל ב-https:// וכתוב באותיות לטיניות (אותיות אחרות ורווחים בקידוד אחוזים).'
  }
}

/** A license: a known identifier, or a custom one with the URL of its text. */
export function checkLicense(license: {identifier?: string; url?: string} | undefined): Verdict {
  const faults = licenseFaults(license)
  return faults.length === 0 ? true : faults.map(licenseMessage).join(' ')
}

function alternateMessage(fault: AlternateFault): string {
  switch (fault.kind) {
    case 'too-many':
      return `יש ${fault.count} גרסאות; לכל היותר ${MAX_ALTERNATE_ENCLOSURES}.`
    case 'not-an-enclosure':
      return 'אינה גרסה של הקובץ: חסרים בה קישור, סוג וגודל.'
    case 'url':
      return 'הקישור מתחיל ב-https:// וכתוב באותיות לטיניות (אותיות אחרות ורווחים בקידוד אחוזים).'
    case 'type':
      return `"${fault.type}" אינו סוג קובץ (MIME), למשל audio/mpeg, audio/opus או video/mp4.`
    case 'length':
      return 'חסר גודל הקובץ בבתים (מספר שלם).'
    case 'bitrate':
      return 'קצב הסיביות הוא מספר חיובי (סיביות לשנייה).'
    case 'height':
      return 'הגובה הוא מספר שלם של פיקסלים.'
    case 'title-too-long':
      return `הכותרת ארוכה מדי: ${fault.length} תווים; לכל היותר ${ALTERNATE_TITLE_MAX_CHARACTERS}.`
    case 'several-defaults':
      return `${fault.count} גרסאות מסומנות כברירת המחדל; רק אחת יכולה להיות: הקובץ הראשי עצמו בכתובת אחרת.`
  }
}

/** The other versions as a whole: each one's faults by its place in the list, and at most one default. */
export function checkAlternateEnclosures(alternates: readonly unknown[] | undefined): Verdict {
  if (!alternates || alternates.length === 0) return true
  const faults = alternateEnclosureFaults(alternates)
  const tooMany = faults.find((fault) => fault.kind === 'too-many')
  // Several defaults are said once, for the list, not on each of them.
  const severalDefaults = faults.find((fault) => fault.kind === 'several-defaults')
  const messages = [
    ...(tooMany ? [alternateMessage(tooMany)] : []),
    ...(severalDefaults ? [alternateMessage(severalDefaults)] : []),
    ...faults.flatMap((fault) =>
      'index' in fault && fault.kind !== 'several-defaults'
        ? [`גרסה ${fault.index + 1}: ${alternateMessage(fault)}`]
        : [],
    ),
  ]
  return messages.length === 0 ? true : messages.join(' ')
}
