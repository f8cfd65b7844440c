import {defineArrayMember, defineField, defineType} from 'sanity'
import {APPLE_CATEGORY_CHOICES} from '../catalog/v1/apple-categories.ts'
import {
  checkArtworkFormat,
  checkFeedTextBytes,
  checkPodcastArtwork,
  feedBytesLeft,
  REQUIRED,
} from '../catalog/editor-rules/validation.ts'
import {fetchedUrlField, hebrewText, voiceReferences} from './fields.ts'
import {channelTagFields} from './channel-tag-fields.ts'

/** The one document id of the podcast's settings: a singleton, edited from the structure's own item. */
export const PODCAST_SETTINGS_ID = 'podcastSettings'

/** The show as the feed presents it: everything `<channel>` says that no episode does. */
export const podcastSettingsType = defineType({
  name: 'podcastSettings',
  title: 'הגדרות הפודקאסט',
  type: 'document',
  fields: [
    hebrewText('title', 'שם התוכנית'),
    defineField({
      name: 'description',
      title: 'תיאור התוכנית',
      type: 'text',
      rows: 6,
      validation: (rule) => [
        rule.required().error(REQUIRED),
        rule.custom((value: string | undefined) => checkFeedTextBytes(value)).error(),
        rule.custom((value: string | undefined) => feedBytesLeft(value)).info(),
      ],
    }),
    hebrewText('author', 'יוצרים (itunes:author)'),
    defineField({
      name: 'owner',
      title: 'בעלים (למייל של Apple)',
      type: 'object',
      fields: [
        hebrewText('name', 'שם'),
        defineField({
          name: 'email',
          title: 'דוא"ל',
          type: 'string',
          validation: (rule) => [rule.required().error(REQUIRED), rule.email().error('כתובת דוא"ל תקינה')],
        }),
      ],
      validation: (rule) => rule.required().error(REQUIRED),
    }),
    defineField({
      name: 'artwork',
      title: 'עטיפה',
      type: 'image',
      description: 'JPEG או PNG, ריבועית, 1400 עד 3000 פיקסלים.',
      options: {accept: 'image/jpeg,image/png'},
      validation: (rule) => [
        rule.required().error(REQUIRED),
        rule.custom((value: {asset?: {_ref?: string}} | undefined) => checkArtworkFormat(value?.asset?._ref)).error(),
        rule.custom((value: {asset?: {_ref?: string}} | undefined) => checkPodcastArtwork(value?.asset?._ref)).error(),
      ],
    }),
    defineField({
      name: 'categories',
      title: 'קטגוריות (של Apple)',
      type: 'array',
      of: [defineArrayMember({type: 'string', options: {list: [...APPLE_CATEGORY_CHOICES]}})],
      validation: (rule) => [
        rule.required().min(1).error('בחרו קטגוריה אחת לפחות.'),
        rule.max(3).error('Apple מציגה עד שלוש קטגוריות.'),
        rule.unique(),
      ],
    }),
    defineField({
      name: 'explicit',
      title: 'תוכן בוטה',
      type: 'boolean',
      initialValue: false,
      validation: (rule) => rule.required().error(REQUIRED),
    }),
    defineField({
      name: 'showType',
      title: 'סוג התוכנית',
      type: 'string',
      initialValue: 'episodic',
      options: {
        list: [
          {title: 'פרקים עצמאיים (episodic)', value: 'episodic'},
          {title: 'סדרה לפי הסדר (serial)', value: 'serial'},
        ],
        layout: 'radio',
      },
      validation: (rule) => rule.required().error(REQUIRED),
    }),
    hebrewText('copyright', 'זכויות יוצרים'),
    voiceReferences('hosts', 'מגישים'),
    defineField({
      name: 'funding',
      title: 'תמיכה בתוכנית',
      type: 'object',
      fields: [fetchedUrlField('url', 'קישור'), hebrewText('text', 'טקסט הקישור', {required: false})],
    }),
    defineField({
      name: 'locked',
      title: 'נעילת הפיד (podcast:locked)',
      type: 'boolean',
      initialValue: true,
      description: 'מונע מפלטפורמה אחרת לייבא את הפיד בלי אישור הבעלים.',
    }),
    defineField({
      name: 'guid',
      title: 'מזהה הפודקאסט (podcast:guid)',
      type: 'string',
      readOnly: true,
      description: 'מחושב פעם אחת מכתובת הפיד ונשמר, כך שמעבר לכתובת אחרת לא משנה אותו.',
    }),
    ...channelTagFields,
  ],
  preview: {prepare: () => ({title: 'הגדרות הפודקאסט'})},
})
