import {defineArrayMember, defineField, type SanityClient, type SanityDocumentLike} from 'sanity'
import {slugify} from '../catalog/editor-rules/slugify.ts'
import {
  checkEnglishTag,
  checkFetchedUrl,
  checkLanguage,
  checkSlug,
  checkText,
  checkVideoId,
  DOCUMENT_TYPE_NAMES,
  OTHER_DOCUMENT_WITH_SLUG_QUERY,
  REQUIRED,
  SLUG_MISSING,
  slugQueryParameters,
} from '../catalog/editor-rules/validation.ts'
import {SLUG_MAX_LENGTH} from '../catalog/v1/contract.ts'

// Field builders shared by the three document types. Names are Sanity's camelCase; the GROQ
// projections in catalog/queries.ts rename them for the API. Titles, descriptions and
// messages are Hebrew, for the editors who write the content.
// A required field says REQUIRED in its own rule, apart from its other checks: a rule's message
// replaces every message of that rule.

export const STUDIO_API_VERSION = '2025-02-19'

interface SlugContext {
  document?: SanityDocumentLike | undefined
  getClient: (options: {apiVersion: string}) => SanityClient
}

async function isUniqueInType(slug: string, context: SlugContext): Promise<boolean> {
  const {document} = context
  if (!document) return true
  const client = context.getClient({apiVersion: STUDIO_API_VERSION})
  const taken = await client.fetch<boolean>(
    OTHER_DOCUMENT_WITH_SLUG_QUERY,
    slugQueryParameters(document._id, document._type, slug),
  )
  return !taken
}

export const slugField = (source: string) =>
  defineField({
    name: 'slug',
    title: 'כתובת (slug)',
    type: 'slug',
    description: 'הכתובת ב-API ובאתר: אותיות לטיניות קטנות, ספרות ומקפים. "Generate" יוצר אותה מהכותרת, בתעתיק.',
    options: {source, maxLength: SLUG_MAX_LENGTH, slugify: (input: string) => slugify(input), isUnique: isUniqueInType},
    // Both checks as errors (the slug type's own would only warn): the API cannot serve either.
    validation: (rule) => [
      rule.required().error(SLUG_MISSING),
      rule
        .custom(async (value, context) => {
          if (!value?.current) return true // the required rule says what to do
          const verdict = checkSlug(value.current)
          if (verdict !== true) return verdict
          const type = DOCUMENT_TYPE_NAMES[context.document?._type ?? ''] ?? 'מסמך'
          return (await isUniqueInType(value.current, context)) ? true : `כבר יש ${type} אחר עם הכתובת הזו.`
        })
        .error(),
    ],
  })

/** A required Hebrew text field (right-to-left in the Studio). */
export const hebrewText = (name: string, title: string, options: {rows?: number; required?: boolean} = {}) =>
  defineField({
    name,
    title,
    type: options.rows ? 'text' : 'string',
    ...(options.rows ? {rows: options.rows} : {}),
    validation: (rule) => [
      ...(options.required === false ? [] : [rule.required().error(REQUIRED)]),
      rule.custom((value: string | undefined) => checkText(value)),
    ],
  })

export const languageField = defineField({
  name: 'language',
  title: 'שפה',
  type: 'string',
  description: 'שפת הטקסט של התוכן (תג BCP 47).',
  initialValue: 'he',
  options: {
    list: [
      {title: 'עברית', value: 'he'},
      {title: 'English', value: 'en'},
    ],
    layout: 'radio',
    direction: 'horizontal',
  },
  validation: (rule) => [
    rule.required().error(REQUIRED),
    rule.custom((value: string | undefined) => checkLanguage(value)),
  ],
})

export const dateField = (name: string, title: string) =>
  defineField({
    name,
    title,
    type: 'date',
    options: {dateFormat: 'YYYY-MM-DD'},
    validation: (rule) => rule.required().error(REQUIRED),
  })

export const tagsField = defineField({
  name: 'tags',
  title: 'תגיות',
  type: 'array',
  description: 'באנגלית ובאותיות קטנות, למשל "kubernetes" או "web-performance".',
  of: [
    defineArrayMember({
      type: 'string',
      title: 'תגית',
      validation: (rule) => rule.custom((value: string | undefined) => checkEnglishTag(value)),
    }),
  ],
  options: {layout: 'tags'},
  validation: (rule) => rule.unique(),
})

export const urlField = (name: string, title: string) =>
  defineField({
    name,
    title,
    type: 'url',
    validation: (rule) => rule.uri({scheme: ['http', 'https']}).error('קישור מלא, שמתחיל ב-https:// או ב-http://'),
  })

/** A URL podcast apps or directories fetch themselves (a transcript, a funding page): https, in ASCII. */
export const fetchedUrlField = (name: string, title: string) =>
  defineField({
    name,
    title,
    type: 'url',
    validation: (rule) => [
      rule.uri({scheme: ['https']}).error('קישור מלא, שמתחיל ב-https://'),
      rule.custom((value: string | undefined) => checkFetchedUrl(value)).error(),
    ],
  })

export const videoIdField = (options: {required: boolean}) =>
  defineField({
    name: 'videoId',
    title: 'מזהה סרטון ביוטיוב',
    type: 'string',
    validation: (rule) => [
      ...(options.required ? [rule.required().error(REQUIRED)] : []),
      rule.custom((value: string | undefined) => checkVideoId(value)),
    ],
  })

export const voiceReferences = (name: string, title: string) =>
  defineField({
    name,
    title,
    type: 'array',
    of: [defineArrayMember({type: 'reference', title: 'קול', to: [{type: 'voice'}]})],
    validation: (rule) => rule.unique(),
  })

export const imageField = (name: string, title: string) =>
  defineField({name, title, type: 'image', options: {hotspot: true}})
