import {defineArrayMember, defineField} from 'sanity'
import {ALTERNATE_TITLE_MAX_CHARACTERS, SOUNDBITE_MAX_SECONDS, SOUNDBITE_MIN_SECONDS} from '../catalog/v1/contract.ts'
import {SOUNDBITE_TITLE_MAX_CHARACTERS} from '../catalog/v1/soundbites.ts'
import {
  checkAlternateEnclosures,
  checkLicense,
  checkSeasonName,
  checkSoundbites,
  KNOWN_LICENSE_LIST,
} from '../catalog/editor-rules/podcast-tags.ts'
import {checkText, REQUIRED} from '../catalog/editor-rules/validation.ts'
import {fetchedUrlField} from './fields.ts'

// Podcasting 2.0 tags an editor sets on an episode (podcast:soundbite, podcast:season's name,
// podcast:license, podcast:alternateEnclosure) and the show's license in the podcast settings.
// Each is checked by the server's own rule (catalog/editor-rules/podcast-tags.ts words it in Hebrew): what the
// Studio refuses is what the server would leave out of the API and the feed.

const atMost = (count: number) => `עד ${count} תווים.`

/** podcast:season's `name`: beside the episode's season number. */
export const seasonNameField = defineField({
  name: 'seasonName',
  title: 'שם העונה',
  type: 'string',
  description: 'לא חובה. אפליקציות שמציגות אותו יכולות להציג אותו במקום מספר העונה. אותו שם בכל פרקי העונה.',
  validation: (rule) => [
    rule.custom((value: string | undefined) => checkText(value)),
    rule.custom((value: string | undefined, context) => checkSeasonName(value, context.document?.['season'])).error(),
  ],
})

/** podcast:soundbite: highlights of the episode that apps can play or share. */
export const soundbitesField = defineField({
  name: 'soundbites',
  title: 'קטעים נבחרים',
  type: 'array',
  description: `רגעים מהפרק שאפליקציות מציגות כתצוגה מקדימה או לשיתוף: התחלה ואורך בשניות, ${SOUNDBITE_MIN_SECONDS} עד ${SOUNDBITE_MAX_SECONDS} שניות כל אחד, בתוך משך הפרק.`,
  of: [
    defineArrayMember({
      type: 'object',
      name: 'soundbite',
      title: 'קטע נבחר',
      fields: [
        defineField({
          name: 'start',
          title: 'התחלה (שניות מתחילת הפרק)',
          type: 'number',
          validation: (rule) => [rule.required().error(REQUIRED), rule.min(0).error('0 שניות או יותר.')],
        }),
        defineField({
          name: 'duration',
          title: 'אורך (שניות)',
          type: 'number',
          validation: (rule) => [
            rule.required().error(REQUIRED),
            rule
              .min(SOUNDBITE_MIN_SECONDS)
              .max(SOUNDBITE_MAX_SECONDS)
              .error(`בין ${SOUNDBITE_MIN_SECONDS} ל-${SOUNDBITE_MAX_SECONDS} שניות.`),
          ],
        }),
        defineField({
          name: 'title',
          title: 'כותרת',
          type: 'string',
          description: 'לא חובה: בלעדיה אפליקציות מציגות את כותרת הפרק.',
          validation: (rule) => [
            rule.custom((value: string | undefined) => checkText(value)),
            rule.max(SOUNDBITE_TITLE_MAX_CHARACTERS).error(atMost(SOUNDBITE_TITLE_MAX_CHARACTERS)),
          ],
        }),
      ],
      preview: {select: {title: 'title', start: 'start', duration: 'duration'}, prepare: soundbitePreview},
    }),
  ],
  validation: (rule) =>
    rule.custom((value: unknown[] | undefined, context) => checkSoundbites(value, context.document?.['duration'])),
})

function soundbitePreview({title, start, duration}: {title?: string; start?: number; duration?: number}) {
  return {title: title || 'קטע נבחר', subtitle: `מ-${start ?? '?'} שניות, ${duration ?? '?'} שניות`}
}

/** podcast:license: for the show (the podcast settings) or one episode, which overrides the show's. */
export const licenseField = (description: string) =>
  defineField({
    name: 'license',
    title: 'רישיון (podcast:license)',
    type: 'object',
    description,
    fields: [
      defineField({
        name: 'identifier',
        title: 'מזהה הרישיון',
        type: 'string',
        description: `באותיות קטנות: ${KNOWN_LICENSE_LIST}. לרישיון אחר: שם קצר וקישור לנוסח שלו.`,
      }),
      fetchedUrlField('url', 'קישור לנוסח הרישיון'),
    ],
    validation: (rule) =>
      rule.custom((value: {identifier?: string; url?: string} | undefined) => checkLicense(value)).error(),
  })

/** podcast:alternateEnclosure: other versions of the episode's media, each at its own https address. */
export const alternateEnclosuresField = defineField({
  name: 'alternateEnclosures',
  title: 'גרסאות נוספות של הקובץ',
  type: 'array',
  description:
    'למשל אודיו בקצב סיביות נמוך או גרסת וידאו. הקובץ הראשי נשאר כמו שהוא; "ברירת מחדל" מסמנת את אותו קובץ ראשי בכתובת אחרת (רק גרסה אחת).',
  of: [
    defineArrayMember({
      type: 'object',
      name: 'alternateEnclosure',
      title: 'גרסה',
      fields: [
        defineField({...fetchedUrlField('url', 'קישור (https)'), validation: undefined}),
        defineField({
          name: 'type',
          title: 'סוג הקובץ (MIME)',
          type: 'string',
          description: 'למשל audio/mpeg, audio/opus, audio/aac או video/mp4.',
        }),
        defineField({
          name: 'length',
          title: 'גודל הקובץ (בתים)',
          type: 'number',
          validation: (rule) => rule.integer().positive(),
        }),
        defineField({name: 'bitrate', title: 'קצב סיביות (סיביות לשנייה)', type: 'number'}),
        defineField({name: 'height', title: 'גובה בפיקסלים (לווידאו)', type: 'number'}),
        defineField({
          name: 'title',
          title: 'כותרת',
          type: 'string',
          description: `קצרה, עד ${ALTERNATE_TITLE_MAX_CHARACTERS} תווים, למשל "איכות נמוכה".`,
          validation: (rule) => rule.custom((value: string | undefined) => checkText(value)),
        }),
        defineField({name: 'default', title: 'ברירת מחדל (הקובץ הראשי בכתובת אחרת)', type: 'boolean'}),
      ],
      preview: {select: {title: 'title', subtitle: 'type'}},
    }),
  ],
  validation: (rule) => rule.custom((value: unknown[] | undefined) => checkAlternateEnclosures(value)).error(),
})
