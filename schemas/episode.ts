import {defineArrayMember, defineField, defineType} from 'sanity'
import {checkFaqPair, checkText} from '../plugin/validation.ts'
import {dateField, hebrewText, imageField, languageField, slugField, tagsField, urlField, videoIdField, voiceReferences} from './fields.ts'

export const episodeType = defineType({
  name: 'episode',
  title: 'Episode',
  type: 'document',
  fields: [
    hebrewText('title', 'Title'),
    slugField('title'),
    hebrewText('description', 'Description', {rows: 4}),
    languageField,
    dateField('publishedAt', 'Published'),
    tagsField,
    voiceReferences('guests', 'Guests'),
    urlField('audioUrl', 'Audio URL'),
    videoIdField({required: false}),
    urlField('podcastDirectoryUrl', 'Podcast directory URL'),
    imageField('coverImage', 'Cover image'),
    defineField({
      name: 'takeaways',
      title: 'Takeaways',
      type: 'array',
      of: [defineArrayMember({type: 'text', rows: 2, validation: (rule) => rule.required().custom((value: string | undefined) => checkText(value))})],
    }),
    defineField({
      name: 'faq',
      title: 'FAQ',
      type: 'array',
      of: [
        defineArrayMember({
          type: 'object',
          name: 'faqEntry',
          title: 'Question and answer',
          fields: [hebrewText('question', 'Question', {rows: 2}), hebrewText('answer', 'Answer', {rows: 4})],
          validation: (rule) => rule.custom((value: {question?: string; answer?: string} | undefined) => checkFaqPair(value)),
          preview: {select: {title: 'question', subtitle: 'answer'}},
        }),
      ],
    }),
  ],
  orderings: [{title: 'Newest first', name: 'publishedAtDesc', by: [{field: 'publishedAt', direction: 'desc'}]}],
  preview: {select: {title: 'title', subtitle: 'publishedAt', media: 'coverImage'}},
})
