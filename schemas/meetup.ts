import {defineArrayMember, defineField, defineType} from 'sanity'
import {checkText} from '../catalog/editor-rules/validation.ts'
import {
  dateField,
  hebrewText,
  imageField,
  languageField,
  slugField,
  tagsField,
  videoIdField,
  voiceReferences,
} from './fields.ts'

export const meetupType = defineType({
  name: 'meetup',
  title: 'הרצאה במיטאפ',
  type: 'document',
  fields: [
    hebrewText('title', 'כותרת'),
    slugField('title'),
    hebrewText('abstract', 'תקציר', {rows: 4, required: false}),
    languageField,
    dateField('talkDate', 'תאריך ההרצאה'),
    tagsField,
    defineField({
      name: 'audience',
      title: 'קהל יעד',
      type: 'array',
      description: 'למי ההרצאה מיועדת, בעברית.',
      of: [
        defineArrayMember({
          type: 'string',
          validation: (rule) => rule.custom((value: string | undefined) => checkText(value)),
        }),
      ],
      options: {layout: 'tags'},
    }),
    voiceReferences('speakers', 'מרצים'),
    videoIdField({required: true}),
    imageField('thumbnail', 'תמונה ממוזערת'),
  ],
  orderings: [{title: 'החדשות קודם', name: 'talkDateDesc', by: [{field: 'talkDate', direction: 'desc'}]}],
  preview: {select: {title: 'title', subtitle: 'talkDate', media: 'thumbnail'}},
})
