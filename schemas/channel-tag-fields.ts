import {defineArrayMember, defineField} from 'sanity'
import {
  FREQUENCY_TEXT_MAX_CHARACTERS,
  MAX_PODROLL,
  MAX_TXTS,
  PURPOSE_MAX_CHARACTERS,
  TXT_MAX_CHARACTERS,
} from '../catalog/v1/channel-tags.ts'
import {checkRemoteShow, checkRrule, checkRuleStart, MEDIUM_CHOICES} from '../catalog/editor-rules/channel-tags.ts'
import {REQUIRED} from '../catalog/editor-rules/validation.ts'
import {fetchedUrlField} from './fields.ts'
import {licenseField} from './podcast-tag-fields.ts'

const atMost = (count: number) => `עד ${count} תווים.`

/** The podcast settings' channel tags: each goes into the feed only once it is set (see docs/feed.md). */
export const channelTagFields = [
  defineField({
    name: 'txts',
    title: 'טקסטים לאימות (podcast:txt)',
    type: 'array',
    description:
      'קוד שפלטפורמה נותנת כדי לאמת שהפיד שלכם. ל-Apple Podcasts Connect: מטרה applepodcastsverify והקוד ש-Apple מציגה.',
    of: [
      defineArrayMember({
        type: 'object',
        name: 'feedTxt',
        title: 'טקסט',
        fields: [
          defineField({
            name: 'text',
            title: 'טקסט',
            type: 'string',
            validation: (rule) => [
              rule.required().error(REQUIRED),
              rule.max(TXT_MAX_CHARACTERS).error(atMost(TXT_MAX_CHARACTERS)),
            ],
          }),
          defineField({
            name: 'purpose',
            title: 'מטרה (purpose)',
            type: 'string',
            description: 'למשל applepodcastsverify או verify.',
            validation: (rule) => rule.max(PURPOSE_MAX_CHARACTERS).error(atMost(PURPOSE_MAX_CHARACTERS)),
          }),
        ],
        preview: {select: {title: 'purpose', subtitle: 'text'}},
      }),
    ],
    validation: (rule) => rule.max(MAX_TXTS).error(`עד ${MAX_TXTS} טקסטים.`),
  }),
  defineField({
    name: 'medium',
    title: 'סוג התוכן (podcast:medium)',
    type: 'string',
    initialValue: 'podcast',
    options: {list: MEDIUM_CHOICES},
  }),
  defineField({
    name: 'updateFrequency',
    title: 'תדירות הפרסום (podcast:updateFrequency)',
    type: 'object',
    description: 'מתי יוצאים פרקים חדשים, במילים ובכלל חזרה שאפליקציות קוראות.',
    fields: [
      defineField({
        name: 'text',
        title: 'במילים',
        type: 'string',
        description: 'למשל "כל שבועיים, ביום ראשון".',
        validation: (rule) => [
          rule.required().error(REQUIRED),
          rule.max(FREQUENCY_TEXT_MAX_CHARACTERS).error(atMost(FREQUENCY_TEXT_MAX_CHARACTERS)),
        ],
      }),
      defineField({
        name: 'rrule',
        title: 'כלל חזרה (RRULE)',
        type: 'string',
        description: 'FREQ=WEEKLY;INTERVAL=2 לכל שבועיים, FREQ=WEEKLY;BYDAY=SU לכל יום ראשון.',
        validation: (rule) => rule.custom((value: string | undefined) => checkRrule(value)).error(),
      }),
      defineField({name: 'start', title: 'תאריך התחלה', type: 'date'}),
      defineField({name: 'complete', title: 'לא יצאו עוד פרקים', type: 'boolean'}),
    ],
    validation: (rule) =>
      rule.custom((value: {rrule?: string; start?: string} | undefined) => checkRuleStart(value)).error(),
  }),
  defineField({
    name: 'podroll',
    title: 'תוכניות שאנחנו ממליצים עליהן (podcast:podroll)',
    type: 'array',
    of: [
      defineArrayMember({
        type: 'object',
        name: 'remoteShow',
        title: 'תוכנית',
        fields: [
          defineField({name: 'title', title: 'שם התוכנית', type: 'string'}),
          defineField({name: 'feedGuid', title: 'מזהה הפיד (podcast:guid)', type: 'string'}),
          defineField({name: 'feedUrl', title: 'כתובת הפיד', type: 'url'}),
        ],
        validation: (rule) =>
          rule.custom((value: {feedGuid?: string; feedUrl?: string} | undefined) => checkRemoteShow(value)).error(),
        preview: {select: {title: 'title', subtitle: 'feedUrl'}},
      }),
    ],
    validation: (rule) => rule.max(MAX_PODROLL).error(`עד ${MAX_PODROLL} תוכניות.`),
  }),
  defineField({
    ...fetchedUrlField('newFeedUrl', 'כתובת פיד חדשה (itunes:new-feed-url)'),
    description: 'רק כשהפיד עובר לכתובת אחרת: Apple עוברת לכתובת הזו.',
  }),
  defineField({
    name: 'block',
    title: 'הסתרה מ-Apple Podcasts (itunes:block)',
    type: 'boolean',
    description: 'מסיר את התוכנית כולה מהספרייה של Apple Podcasts.',
  }),
  defineField({
    name: 'complete',
    title: 'התוכנית הסתיימה (itunes:complete)',
    type: 'boolean',
    description: 'לא יצאו עוד פרקים לעולם.',
  }),
  licenseField('מה מותר לעשות בפרקים אחרי שפורסמו. פרק יכול לקבוע רישיון משלו.'),
]
