import {defineLocaleResourceBundle} from 'sanity'
import {REQUIRED} from '../../catalog/editor-rules/validation.ts'

export const CATALOG_NAMESPACE = 'code-talks-catalog'

/** The plugin's own strings: list titles and the "API" view. */
export const catalogStrings = {
  'structure.catalog': 'קטלוג',
  'structure.episodes': 'פרקים',
  'structure.meetups': 'הרצאות במיטאפים',
  'structure.voices': 'קולות',
  'structure.podcast-settings': 'הגדרות הפודקאסט',
  'view.api': 'API',
  'api-view.not-in-catalog': 'סוג המסמך הזה אינו חלק מה-API של הקטלוג.',
  'api-view.query-failed': 'השאילתה של ה-API נכשלה: {{message}}',
  'api-view.missing': 'אין עדיין מה להציג: המסמך לא נשמר.',
  'api-view.rejected': 'ה-API לא יגיש את המסמך הזה. יש לתקן קודם:',
  'view.feed': 'פיד',
  'feed-view.query-failed': 'השאילתה של הפיד נכשלה: {{message}}',
  'feed-view.not-served': 'הפרק לא יופיע בפיד. יש לתקן קודם:',
} as const

// The Studio has no Hebrew locale (none is published) and runs in en-US; the team's editors write
// Hebrew, so the plugin's strings are Hebrew there. A bundle for another locale replaces them in it.
export const catalogLocaleBundle = defineLocaleResourceBundle({
  locale: 'en-US',
  namespace: CATALOG_NAMESPACE,
  resources: catalogStrings,
})

/**
 * Hebrew for the messages of Sanity's built-in rules that the catalog's types can meet (the slug
 * type's own required `current`, a duplicate tag or guest, an unpublished reference), in Sanity's
 * `validation` namespace. The panel around them stays in the Studio's language.
 */
export const validationLocaleBundle = defineLocaleResourceBundle({
  locale: 'en-US',
  namespace: 'validation',
  resources: {
    'generic.required': REQUIRED,
    'generic.incorrect-type': 'ערך מסוג "{{actualType}}" במקום שבו נדרש "{{expectedType}}"',
    'generic.not-allowed': 'הערך אינו אחד מהערכים המותרים',
    'generic.not-allowed_hint': 'הערך "{{hint}}" אינו אחד מהערכים המותרים',
    'array.item-duplicate': 'הפריט כבר מופיע ברשימה',
    'date.invalid-format': 'תאריך בצורה 2026-11-23 (ISO 8601)',
    'object.not-reference': 'נדרש קישור למסמך',
    'object.reference-not-published': 'המסמך המקושר עדיין לא פורסם',
    'object.asset-required': 'יש לבחור קובץ',
    'object.asset-required_image': 'יש לבחור תמונה',
    'slug.missing-current': 'לכתובת אין ערך',
    'slug.not-object': 'הכתובת אינה בצורה של slug',
    'slug.not-unique': 'הכתובת כבר בשימוש',
    'string.maximum-length': 'לכל היותר {{maxLength}} תווים',
    'string.minimum-length': 'לפחות {{minLength}} תווים',
    'string.url.invalid': 'כתובת URL לא תקינה',
    'string.url.not-absolute': 'נדרשת כתובת URL מלאה, עם https://',
    'string.url.disallowed-scheme': 'הפרוטוקול של הכתובת אינו מותר',
    'string.url.includes-credentials': 'אין לכלול שם משתמש או סיסמה בכתובת',
  },
})
