import {defineLocaleResourceBundle} from 'sanity'

export const CATALOG_NAMESPACE = 'code-talks-catalog'

/** The plugin's own strings: list titles and the "API" view. */
export const catalogStrings = {
  'structure.catalog': 'קטלוג',
  'structure.episodes': 'פרקים',
  'structure.meetups': 'הרצאות במיטאפים',
  'structure.voices': 'קולות',
  'view.api': 'API',
  'api-view.not-in-catalog': 'סוג המסמך הזה אינו חלק מה-API של הקטלוג.',
  'api-view.query-failed': 'השאילתה של ה-API נכשלה: {{message}}',
  'api-view.missing': 'אין עדיין מה להציג: המסמך לא נשמר.',
  'api-view.rejected': 'ה-API לא יגיש את המסמך הזה. יש לתקן קודם:',
} as const

// The Studio has no Hebrew locale (none is published) and runs in en-US; the team's editors write
// Hebrew, so the plugin's strings are Hebrew there. A bundle for another locale replaces them in it.
export const catalogLocaleBundle = defineLocaleResourceBundle({locale: 'en-US', namespace: CATALOG_NAMESPACE, resources: catalogStrings})
