import {defineArrayMember, defineField, defineType} from 'sanity'
import {hebrewText, imageField, languageField, slugField, urlField} from './fields.ts'

export const voiceType = defineType({
  name: 'voice',
  title: 'Voice',
  type: 'document',
  description: 'A speaker: an episode guest or a meetup speaker.',
  fields: [
    hebrewText('name', 'Name'),
    slugField('name'),
    defineField({name: 'role', title: 'Role', type: 'string', description: 'In English, such as "Staff Engineer".', validation: (rule) => rule.required()}),
    hebrewText('bio', 'Biography', {rows: 4}),
    languageField,
    defineField({
      name: 'techStack',
      title: 'Tech stack',
      type: 'array',
      of: [defineArrayMember({type: 'string'})],
      options: {layout: 'tags'},
      validation: (rule) => rule.unique(),
    }),
    urlField('socialProfileUrl', 'Social profile URL'),
    imageField('headshot', 'Headshot'),
  ],
  orderings: [{title: 'Name', name: 'nameAsc', by: [{field: 'name', direction: 'asc'}]}],
  preview: {select: {title: 'name', subtitle: 'role', media: 'headshot'}},
})
