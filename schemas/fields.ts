import {defineArrayMember, defineField, type SanityClient, type SanityDocumentLike} from 'sanity'
import {slugify} from '../plugin/slugify.ts'
import {
  checkEnglishTag,
  checkLanguage,
  checkSlug,
  checkText,
  checkVideoId,
  OTHER_DOCUMENT_WITH_SLUG_QUERY,
  slugQueryParameters,
} from '../plugin/validation.ts'
import {SLUG_MAX_LENGTH} from '../server/api/v1/contract.ts'

// Field builders shared by the three document types. Names are Sanity's camelCase; the GROQ
// projections in server/content/queries.ts rename them for the API.

export const STUDIO_API_VERSION = '2025-02-19'

interface SlugContext {
  document?: SanityDocumentLike | undefined
  getClient: (options: {apiVersion: string}) => SanityClient
}

async function isUniqueInType(slug: string, context: SlugContext): Promise<boolean> {
  const {document} = context
  if (!document) return true
  const client = context.getClient({apiVersion: STUDIO_API_VERSION})
  const taken = await client.fetch<boolean>(OTHER_DOCUMENT_WITH_SLUG_QUERY, slugQueryParameters(document._id, document._type, slug))
  return !taken
}

export const slugField = (source: string) =>
  defineField({
    name: 'slug',
    title: 'Slug',
    type: 'slug',
    description: 'The address in the API and on the site: lowercase Latin letters, digits and dashes. "Generate" transliterates the Hebrew title.',
    options: {source, maxLength: SLUG_MAX_LENGTH, slugify: (input: string) => slugify(input), isUnique: isUniqueInType},
    // Both checks as errors (the slug type's own would only warn): the API cannot serve either.
    validation: (rule) =>
      rule
        .required()
        .custom(async (value, context) => {
          const verdict = checkSlug(value?.current)
          if (verdict !== true || !value?.current) return verdict
          return (await isUniqueInType(value.current, context)) ? true : `Another ${context.document?._type ?? 'document'} already has this slug.`
        })
        .error(),
  })

/** A required Hebrew text field (right-to-left in the Studio). */
export const hebrewText = (name: string, title: string, options: {rows?: number; required?: boolean} = {}) =>
  defineField({
    name,
    title,
    type: options.rows ? 'text' : 'string',
    ...(options.rows ? {rows: options.rows} : {}),
    validation: (rule) => (options.required === false ? rule : rule.required()).custom((value: string | undefined) => checkText(value)),
  })

export const languageField = defineField({
  name: 'language',
  title: 'Language',
  type: 'string',
  description: 'BCP 47 tag of the content text.',
  initialValue: 'he',
  options: {list: [{title: 'עברית', value: 'he'}, {title: 'English', value: 'en'}], layout: 'radio', direction: 'horizontal'},
  validation: (rule) => rule.required().custom((value: string | undefined) => checkLanguage(value)),
})

export const dateField = (name: string, title: string) =>
  defineField({
    name,
    title,
    type: 'date',
    options: {dateFormat: 'YYYY-MM-DD'},
    validation: (rule) => rule.required(),
  })

export const tagsField = defineField({
  name: 'tags',
  title: 'Tags',
  type: 'array',
  description: 'Lowercase English, such as "kubernetes" or "web-performance".',
  of: [defineArrayMember({type: 'string', validation: (rule) => rule.custom((value: string | undefined) => checkEnglishTag(value))})],
  options: {layout: 'tags'},
  validation: (rule) => rule.unique(),
})

export const urlField = (name: string, title: string) =>
  defineField({name, title, type: 'url', validation: (rule) => rule.uri({scheme: ['http', 'https']})})

export const videoIdField = (options: {required: boolean}) =>
  defineField({
    name: 'videoId',
    title: 'YouTube video id',
    type: 'string',
    validation: (rule) => (options.required ? rule.required() : rule).custom((value: string | undefined) => checkVideoId(value)),
  })

export const voiceReferences = (name: string, title: string) =>
  defineField({
    name,
    title,
    type: 'array',
    of: [defineArrayMember({type: 'reference', to: [{type: 'voice'}]})],
    validation: (rule) => rule.unique(),
  })

export const imageField = (name: string, title: string) => defineField({name, title, type: 'image', options: {hotspot: true}})
