import {defineArrayMember, defineField, defineType} from 'sanity'
import {
  checkAudioFile,
  checkAudioType,
  checkAudioUrl,
  checkFaqPair,
  checkFeedTextBytes,
  checkPodcastArtwork,
  checkText,
  feedBytesLeft,
  REQUIRED,
} from '../catalog/editor-rules/validation.ts'
import {checkChapters, checkChapterTime, checkChapterTitle} from '../catalog/editor-rules/chapters.ts'
import {checkTranscript} from '../catalog/editor-rules/transcript.ts'
import {checkDurationAgainstFile, checkHasAudio} from '../catalog/editor-rules/audio-checks.ts'
import {releaseTimeField, releaseTimePreview} from './release-time.ts'
import {
  fetchedUrlField,
  hebrewText,
  imageField,
  languageField,
  slugField,
  tagsField,
  urlField,
  videoIdField,
  voiceReferences,
} from './fields.ts'
import {EPISODE_NUMBER_DESCRIPTION, EPISODE_NUMBER_NOT_WHOLE} from '../catalog/editor-rules/episode-number.ts'
import {alternateEnclosuresField, licenseField, seasonNameField, soundbitesField} from './podcast-tag-fields.ts'
import {ENCLOSURE_EXTENSIONS, ENCLOSURE_FORMATS, ENCLOSURE_MIME_TYPES} from '../catalog/v1/contract.ts'

/** The file picker's filter: each type, then each extension, for systems that name files by extension. */
const ENCLOSURE_ACCEPT = [...ENCLOSURE_MIME_TYPES, ...ENCLOSURE_EXTENSIONS.map((extension) => `.${extension}`)].join(
  ',',
)

/** An uploaded audio file makes the external URL, length and type fields moot, so they are hidden. */
function hasAudioFile(document: Record<string, unknown> | undefined): boolean {
  const file = document?.['audioFile']
  return typeof file === 'object' && file !== null && 'asset' in file && Boolean(file.asset)
}

const stringOf = (value: unknown) => (typeof value === 'string' ? value : undefined)

/** The duration the Studio read from the uploaded file (AudioFileInput), while it has one. */
function measuredDuration(document: Record<string, unknown> | undefined): number | undefined {
  const file = document?.['audioFile']
  if (!hasAudioFile(document) || typeof file !== 'object' || file === null || !('durationSeconds' in file)) return
  return typeof file.durationSeconds === 'number' ? file.durationSeconds : undefined
}

export const episodeType = defineType({
  name: 'episode',
  title: 'פרק',
  type: 'document',
  fields: [
    hebrewText('title', 'כותרת'),
    slugField('title'),
    defineField({
      name: 'description',
      title: 'תקציר',
      type: 'text',
      rows: 4,
      // The feed's item description is the summary with the takeaways; Apple refuses more than 4000 bytes.
      validation: (rule) => [
        rule.required().error(REQUIRED),
        rule.custom((value: string | undefined) => checkText(value)),
        rule.custom((value: string | undefined) => checkFeedTextBytes(value)).error(),
        rule.custom((value: string | undefined) => feedBytesLeft(value)).info(),
      ],
    }),
    languageField,
    releaseTimeField,
    tagsField,
    voiceReferences('guests', 'אורחים'),
    defineField({
      name: 'audioFile',
      title: 'קובץ האודיו',
      type: 'file',
      description: 'גודל וסוג הקובץ נלקחים מהקובץ עצמו. בלי קובץ, קישור חיצוני עם גודל וסוג.',
      // Apple Podcasts' formats only: MP3, M4A, MP4, MOV, M4V.
      options: {accept: ENCLOSURE_ACCEPT},
      // Read from the file in the browser when it is picked (plugin/components/AudioFileInput.tsx, wired by the
      // plugin: the server reads these schemas and loads no JSX), kept so the typed duration can be compared.
      fields: [
        defineField({
          name: 'durationSeconds',
          title: 'משך הקובץ (שניות)',
          type: 'number',
          hidden: true,
          readOnly: true,
        }),
      ],
      validation: (rule) => [
        rule.custom((value: {asset?: {_ref?: string}} | undefined) => checkAudioFile(value?.asset?._ref)).error(),
        rule
          .custom((value: {asset?: {_ref?: string}} | undefined, context) =>
            checkHasAudio({file: value?.asset?._ref, url: stringOf(context.document?.['audioUrl'])}),
          )
          .warning(),
      ],
    }),
    defineField({
      name: 'audioUrl',
      title: 'קישור חיצוני לאודיו',
      type: 'url',
      hidden: ({document}) => hasAudioFile(document),
      validation: (rule) => [
        rule.uri({scheme: ['https']}).error('קישור מלא, שמתחיל ב-https://'),
        rule.custom((value: string | undefined) => checkAudioUrl(value)).error(),
      ],
    }),
    defineField({
      name: 'audioLength',
      title: 'גודל קובץ האודיו (בתים)',
      type: 'number',
      hidden: ({document}) => hasAudioFile(document),
      validation: (rule) =>
        rule
          .custom((value: number | undefined, context) =>
            context.document?.['audioUrl'] && !value ? 'הגודל המדויק בבתים, כפי שהשרת מגיש אותו.' : true,
          )
          .integer()
          .positive(),
    }),
    defineField({
      name: 'audioType',
      title: 'סוג קובץ האודיו',
      type: 'string',
      hidden: ({document}) => hasAudioFile(document),
      options: {
        list: ENCLOSURE_MIME_TYPES.map((type) => ({title: `${ENCLOSURE_FORMATS[type].name} (${type})`, value: type})),
      },
      validation: (rule) => [
        rule.custom((value: string | undefined, context) =>
          context.document?.['audioUrl'] && !value ? 'בחרו את סוג הקובץ.' : true,
        ),
        rule.custom((value: string | undefined) => checkAudioType(value)).error(),
      ],
    }),
    alternateEnclosuresField,
    defineField({
      name: 'duration',
      title: 'משך (שניות)',
      type: 'number',
      description: 'נמלא מקובץ האודיו כשהוא מועלה.',
      validation: (rule) => [
        rule.integer().positive(),
        rule
          .custom((value: number | undefined, context) =>
            checkDurationAgainstFile(value, measuredDuration(context.document)),
          )
          .warning(),
      ],
    }),
    defineField({
      name: 'episodeNumber',
      title: 'מספר הפרק',
      type: 'number',
      description: EPISODE_NUMBER_DESCRIPTION,
      validation: (rule) => [
        rule.integer().error(EPISODE_NUMBER_NOT_WHOLE),
        rule.min(0).error(EPISODE_NUMBER_NOT_WHOLE),
      ],
    }),
    defineField({
      name: 'chapters',
      title: 'מקטעים',
      type: 'array',
      // The plugin's form input (CatalogInput.tsx) adds the import from a chapters JSON file.
      description:
        'נקודות בתוך הפרק שאפליקציות מציגות ומאפשרות לדלג אליהן. הראשון ב-0:00, ואחריו בסדר עולה. אפשר לייבא קובץ chapters.json.',
      of: [
        defineArrayMember({
          type: 'object',
          name: 'chapter',
          title: 'מקטע',
          fields: [
            defineField({
              name: 'start',
              title: 'התחלה (mm:ss או h:mm:ss)',
              type: 'string',
              validation: (rule) => [
                rule.required().error(REQUIRED),
                rule.custom((value: string | undefined) => checkChapterTime(value)).error(),
              ],
            }),
            defineField({
              ...hebrewText('title', 'כותרת'),
              validation: (rule) => [
                rule.required().error(REQUIRED),
                rule.custom((value: string | undefined) => checkText(value)),
                rule.custom((value: string | undefined) => checkChapterTitle(value)).error(),
              ],
            }),
            fetchedUrlField('url', 'קישור (https)'),
            imageField('image', 'תמונה'),
          ],
          preview: {select: {title: 'title', subtitle: 'start', media: 'image'}},
        }),
      ],
      validation: (rule) =>
        rule.custom((value: unknown[] | undefined, context) => checkChapters(value, context.document?.['duration'])),
    }),
    soundbitesField,
    defineField({name: 'season', title: 'עונה', type: 'number', validation: (rule) => rule.integer().positive()}),
    seasonNameField,
    defineField({
      name: 'episodeType',
      title: 'סוג הפרק',
      type: 'string',
      initialValue: 'full',
      options: {
        list: [
          {title: 'פרק מלא', value: 'full'},
          {title: 'טריילר', value: 'trailer'},
          {title: 'בונוס', value: 'bonus'},
        ],
        layout: 'radio',
        direction: 'horizontal',
      },
    }),
    defineField({name: 'explicit', title: 'תוכן בוטה', type: 'boolean', initialValue: false}),
    licenseField('לא חובה: רישיון לפרק הזה בלבד, במקום הרישיון של התוכנית (בהגדרות הפודקאסט).'),
    defineField({
      name: 'transcriptFile',
      title: 'תמלול (קובץ VTT או SRT)',
      type: 'file',
      options: {accept: '.vtt,.srt,text/vtt,application/x-subrip'},
    }),
    fetchedUrlField('transcriptUrl', 'תמלול (קישור ל-VTT או SRT)'),
    defineField({
      name: 'transcript',
      title: 'תמלול',
      type: 'array',
      description:
        'מה שנאמר בפרק, שורה אחר שורה עם זמן ודובר. השרת מגיש אותו כ-VTT, SRT ו-JSON, ומחליף את הקישור החיצוני שלמעלה.',
      of: [
        defineArrayMember({
          type: 'object',
          name: 'transcriptCue',
          title: 'שורת תמלול',
          fields: [
            defineField({
              name: 'start',
              title: 'התחלה (שניות)',
              type: 'number',
              validation: (rule) => rule.required().min(0),
            }),
            defineField({
              name: 'end',
              title: 'סוף (שניות)',
              type: 'number',
              validation: (rule) => rule.required().min(0),
            }),
            defineField({name: 'speaker', title: 'דובר', type: 'reference', to: [{type: 'voice'}]}),
            // A speaker the file names who is no voice in the catalog, kept as the editor confirmed it.
            defineField({name: 'speakerName', title: 'שם הדובר (כשאינו קול בקטלוג)', type: 'string'}),
            hebrewText('text', 'טקסט', {rows: 2}),
          ],
          // Who speaks: the voice's name, or the name kept from the imported file.
          preview: {
            select: {title: 'text', voice: 'speaker.name', speakerName: 'speakerName'},
            prepare: ({title, voice, speakerName}: {title?: string; voice?: string; speakerName?: string}) => ({
              title,
              subtitle: voice ?? speakerName,
            }),
          },
        }),
      ],
      validation: (rule) =>
        rule.custom((value: unknown[] | undefined, context) => checkTranscript(value, context.document?.['duration'])),
    }),
    videoIdField({required: false}),
    urlField('podcastDirectoryUrl', 'קישור בספריית פודקאסטים'),
    defineField({
      name: 'coverImage',
      title: 'תמונת שער',
      type: 'image',
      options: {hotspot: true},
      description: 'לפיד: ריבועית ולפחות 1400 פיקסלים; אחרת הפיד מציג את עטיפת התוכנית.',
      validation: (rule) =>
        rule
          .custom((value: {asset?: {_ref?: string}} | undefined) => checkPodcastArtwork(value?.asset?._ref))
          .warning(),
    }),
    defineField({
      name: 'takeaways',
      title: 'תובנות',
      type: 'array',
      of: [
        defineArrayMember({
          type: 'text',
          rows: 2,
          validation: (rule) => [
            rule.required().error(REQUIRED),
            rule.custom((value: string | undefined) => checkText(value)),
          ],
        }),
      ],
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
          validation: (rule) =>
            rule.custom((value: {question?: string; answer?: string} | undefined) => checkFaqPair(value)),
          preview: {select: {title: 'question', subtitle: 'answer'}},
        }),
      ],
    }),
  ],
  orderings: [{title: 'החדשים קודם', name: 'publishedAtDesc', by: [{field: 'publishedAt', direction: 'desc'}]}],
  preview: releaseTimePreview,
})
