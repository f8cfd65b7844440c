import {defineArrayMember, defineField, defineType} from 'sanity'
import {checkFaqPair, checkText, REQUIRED} from '../plugin/validation.ts'
import {dateField, hebrewText, imageField, languageField, slugField, tagsField, urlField, videoIdField, voiceReferences} from './fields.ts'

export const episodeType = defineType({
  name: 'episode',
  title: 'פרק',
  type: 'document',
  fields: [
    hebrewText('title', 'כותרת'),
    slugField('title'),
    hebrewText('description', 'תקציר', {rows: 4}),
    languageField,
    dateField('publishedAt', 'תאריך פרסום'),
    tagsField,
    voiceReferences('guests', 'אורחים'),
    urlField('audioUrl', 'קישור לאודיו'),
    videoIdField({required: false}),
    urlField('podcastDirectoryUrl', 'קישור בספריית פודקאסטים'),
    imageField('coverImage', 'תמונת שער'),
    defineField({
      name: 'takeaways',
      title: 'תובנות',
      type: 'array',
      of: [defineArrayMember({type: 'text', rows: 2, validation: (rule) => [rule.required().error(REQUIRED), rule.custom((value: string | undefined) => checkText(value))]})],
    }),
    defineField({
      name: 'faq',
      title: 'שאלות ותשובות',
      type: 'array',
      of: [
        defineArrayMember({
          type: 'object',
          name: 'faqEntry',
          title: 'שאלה ותשובה',
          fields: [hebrewText('question', 'שאלה', {rows: 2}), hebrewText('answer', 'תשובה', {rows: 4})],
          validation: (rule) => rule.custom((value: {question?: string; answer?: string} | undefined) => checkFaqPair(value)),
          preview: {select: {title: 'question', subtitle: 'answer'}},
        }),
      ],
    }),
  ],
  orderings: [{title: 'החדשים קודם', name: 'publishedAtDesc', by: [{field: 'publishedAt', direction: 'desc'}]}],
  preview: {select: {title: 'title', subtitle: 'publishedAt', media: 'coverImage'}},
})
