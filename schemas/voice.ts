import {defineArrayMember, defineField, defineType} from 'sanity'
import {REQUIRED} from '../catalog/editor-rules/validation.ts'
import {hebrewText, imageField, languageField, slugField, urlField} from './fields.ts'

export const voiceType = defineType({
  name: 'voice',
  title: 'קול',
  type: 'document',
  description: 'דוברת או דובר: אורח בפרק או מרצה במיטאפ.',
  fields: [
    hebrewText('name', 'שם'),
    slugField('name'),
    defineField({
      name: 'role',
      title: 'תפקיד',
      type: 'string',
      description: 'באנגלית, למשל "Staff Engineer".',
      validation: (rule) => rule.required().error(REQUIRED),
    }),
    hebrewText('bio', 'ביוגרפיה', {rows: 4}),
    languageField,
    defineField({
      name: 'techStack',
      title: 'טכנולוגיות',
      type: 'array',
      of: [defineArrayMember({type: 'string'})],
      options: {layout: 'tags'},
      validation: (rule) => rule.unique(),
    }),
    urlField('socialProfileUrl', 'פרופיל ברשת חברתית'),
    imageField('headshot', 'תמונת פנים'),
  ],
  orderings: [{title: 'לפי שם', name: 'nameAsc', by: [{field: 'name', direction: 'asc'}]}],
  preview: {select: {title: 'name', subtitle: 'role', media: 'headshot'}},
})
