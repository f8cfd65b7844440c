import {defineArrayMember, defineField, defineType} from 'sanity'
import {checkText} from '../plugin/validation.ts'
import {dateField, hebrewText, imageField, languageField, slugField, tagsField, videoIdField, voiceReferences} from './fields.ts'

export const meetupType = defineType({
  name: 'meetup',
  title: 'Meetup talk',
  type: 'document',
  fields: [
    hebrewText('title', 'Title'),
    slugField('title'),
    hebrewText('abstract', 'Abstract', {rows: 4, required: false}),
    languageField,
    dateField('talkDate', 'Talk date'),
    tagsField,
    defineField({
      name: 'audience',
      title: 'Audience',
      type: 'array',
      description: 'Who the talk is for, in Hebrew.',
      of: [defineArrayMember({type: 'string', validation: (rule) => rule.custom((value: string | undefined) => checkText(value))})],
      options: {layout: 'tags'},
    }),
    voiceReferences('speakers', 'Speakers'),
    videoIdField({required: true}),
    imageField('thumbnail', 'Thumbnail'),
  ],
  orderings: [{title: 'Newest first', name: 'talkDateDesc', by: [{field: 'talkDate', direction: 'desc'}]}],
  preview: {select: {title: 'title', subtitle: 'talkDate', media: 'thumbnail'}},
})
