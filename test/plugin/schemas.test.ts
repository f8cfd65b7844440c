// The Studio's schemas validated by Sanity's own validator (@sanity/validation, as `sanity
// documents validate` runs it), with custom rules querying a local stand-in for the Content Lake.
import {readFile} from 'node:fs/promises'
import {createClient} from '@sanity/client'
import {validateDocumentWithWorkspace} from '@sanity/validation'
import {getFallbackLocaleSource} from '@sanity/validation/_internal'
import {createSchema, type SanityDocument as StudioDocument} from 'sanity'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseNdjson, type SanityDocument} from '../../server/content/ndjson.ts'
import {schemaTypes} from '../../schemas/index.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
const schema = createSchema({name: 'catalog', types: schemaTypes})
let standIn: Awaited<ReturnType<typeof startSanityStandIn>>
let client: ReturnType<typeof createClient>

beforeAll(async () => {
  standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
  client = createClient({
    projectId: 'embedded',
    dataset: 'production',
    apiHost: standIn.apiHost,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- still how a client reaches a stand-in host
    useProjectHostname: false,
    useCdn: false,
    apiVersion: '2025-02-19',
  })
})
afterAll(() => standIn.close())

const ids = new Set(documents.map((document) => document._id))

async function errorsOf(document: SanityDocument, level: 'error' | 'info' = 'error'): Promise<string[]> {
  // As the Studio validates (environment "studio"): headless, @sanity/validation 6.16 appends a
  // warning-level unknown-fields check to every rule of an object field, turning the slug's errors
  // into warnings, and only the workspace form of the call takes an environment.
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- runs the rules with the workspace's client, as the Studio does
  const markers = await validateDocumentWithWorkspace({
    document: toStudioDocument(document),
    workspace: {schema, getClient: () => client, i18n: getFallbackLocaleSource()},
    environment: 'studio',
    getDocumentExists: async ({id}) => ids.has(id),
  })
  return markers
    .filter((marker) => marker.level === level)
    .map(
      (marker) =>
        `${marker.path.map((segment) => (typeof segment === 'string' ? segment : '[]')).join('.')}: ${marker.message}`,
    )
}

function toStudioDocument(document: SanityDocument): StudioDocument {
  return {_createdAt: '2026-01-01T00:00:00Z', _updatedAt: '2026-01-01T00:00:00Z', _rev: 'rev', ...document}
}

const sample = (type: string) => {
  const found = documents.find((document) => document._type === type && !document._id.startsWith('drafts.'))
  if (!found) throw new Error(`no ${type} in the sample`)
  return found
}

describe('the embedded dataset', () => {
  it('validates against the Studio schemas, drafts included', async () => {
    const catalogDocuments = documents.filter((document) =>
      ['episode', 'meetup', 'voice', 'podcastSettings'].includes(document._type),
    )
    expect(catalogDocuments.length).toBeGreaterThan(60)
    const failures = await Promise.all(
      catalogDocuments.map(async (document) => ({id: document._id, errors: await errorsOf(document)})),
    )
    expect(failures.filter((failure) => failure.errors.length > 0)).toEqual([])
  }, 120_000) // Sanity's validator over every sample document: 7 s alone, past 15 s beside a Studio build
})

describe('validation rules', () => {
  it.each([
    ['a missing title', {title: undefined}, 'title: שדה חובה'],
    ['a title of spaces', {title: '   '}, 'title: כתבו משהו, לא רק רווחים.'],
    [
      'an uppercase slug',
      {slug: {_type: 'slug', current: 'Ep-1'}},
      'slug: רק אותיות לטיניות קטנות, ספרות ומקפים (a-z, 0-9, -).',
    ],
    [
      'a slug over 128 characters',
      {slug: {_type: 'slug', current: 'a'.repeat(129)}},
      'slug: לכל היותר 128 תווים (בזו יש 129).',
    ],
    ['a capitalised tag', {tags: ['Kubernetes']}, 'tags.[]: תגיות נכתבות באנגלית באותיות קטנות: "kubernetes".'],
    ['a Hebrew tag', {tags: ['קוברנטיס']}, 'tags.[]: תגיות הן מילים באנגלית באותיות קטנות'],
    ['a relative audio URL', {audioUrl: '/audio/ep-1.mp3'}, 'audioUrl: קישור מלא'],
    [
      'a video URL where the id goes',
      {videoId: 'https://www.youtube.com/watch?v=M7lc1UVf-VE'},
      'videoId: רק מזהה הסרטון, לא הקישור: "M7lc1UVf-VE".',
    ],
    [
      'an FAQ entry without an answer',
      {faq: [{_key: 'a', _type: 'faqEntry', question: 'למה?'}]},
      'faq.[].answer: שדה חובה',
    ],
    ['a date that is not ISO', {publishedAt: '07/01/2026'}, 'publishedAt: '],
  ])('refuses %s', async (_case, change, expected) => {
    const errors = await errorsOf({...sample('episode'), ...change})
    expect(errors.some((error) => error.startsWith(expected))).toBe(true)
  })

  it('refuses characters no feed can carry in any text field, naming the field and the position, as Hebrew errors', async () => {
    const episode = sample('episode')
    expect(await errorsOf({...episode, title: 'פרק\u0008 חדש'})).toContain(
      'title: בשדה "כותרת" יש תו שאי אפשר להגיש בפיד (U+0008) במקום 4. מחקו אותו: לרוב הוא מגיע בהדבקה ממעבד תמלילים או מצ\'אט.',
    )
    // Nested text (an FAQ answer) and a voice's name, where the feed's persons come from.
    const faq = [{_key: 'k1', _type: 'faqEntry', question: 'למה?', answer: 'כי\uFFFE'}]
    expect(await errorsOf({...episode, faq})).toContainEqual(
      expect.stringMatching(
        /^faq\.\[\]\.answer: בשדה "[^"]+ › 1 › answer" יש תו שאי אפשר להגיש בפיד \(U\+FFFE\) במקום 3\./,
      ),
    )
    expect(await errorsOf({...sample('voice'), name: '\uD800דנה'})).toContainEqual(
      expect.stringMatching(/^name: בשדה "שם" יש תו .* \(U\+D800\) במקום 1\./),
    )
    expect(await errorsOf({...episode, title: 'tab\there, a new line\nand emoji 😀'})).toEqual([])
  })

  it('refuses a slug another document of the same type has, but not one only another type has', async () => {
    const [first, second] = documents.filter(
      (document) => document._type === 'episode' && !document._id.startsWith('drafts.'),
    )
    const slugOfFirst = first?.slug
    expect(await errorsOf({...(second ?? sample('episode')), slug: slugOfFirst})).toContain(
      'slug: כבר יש פרק אחר עם הכתובת הזו.',
    )
    // The same document's draft and a voice with that slug do not count.
    expect(await errorsOf({...(first ?? sample('episode')), _id: `drafts.${first?._id}`})).toEqual([])
    expect(await errorsOf({...sample('voice'), slug: slugOfFirst})).toEqual([])
  })

  it('requires a plausible video id on meetups, and both halves of nothing else', async () => {
    expect(await errorsOf({...sample('meetup'), videoId: undefined})).toContain('videoId: שדה חובה')
    expect(await errorsOf({...sample('meetup'), videoId: 'abc'})).toContainEqual(
      expect.stringMatching(/^videoId: מזהה סרטון ביוטיוב הוא 11 תווים/),
    )
    expect(await errorsOf({...sample('meetup'), abstract: undefined})).toEqual([])
    expect(await errorsOf({...sample('voice'), socialProfileUrl: 'linkedin.com/in/someone'})).toContainEqual(
      expect.stringMatching(/^socialProfileUrl: קישור מלא/),
    )
  })

  it.each([
    [
      'a description over 4000 bytes (2001 Hebrew letters)',
      {description: 'א'.repeat(2001)},
      'description: ארוך מדי לפיד: 2 בתים מעל 4000 (אות עברית היא 2 בתים).',
    ],
    [
      'an audio URL over http',
      {audioUrl: 'http://media.codetalks.example/ep.mp3'},
      'audioUrl: קישור לאודיו חייב להתחיל ב-https://.',
    ],
    [
      'an audio URL with Hebrew letters',
      {audioUrl: 'https://media.codetalks.example/פרק.mp3'},
      'audioUrl: קישור לאודיו רק באותיות ASCII',
    ],
    ['an external audio URL without its byte length', {audioLength: undefined}, 'audioLength: הגודל המדויק בבתים'],
    [
      'an external audio URL to an Ogg file',
      {audioUrl: 'https://media.codetalks.example/ep.ogg'},
      'audioUrl: Apple Podcasts מקבלת רק קבצי MP3, M4A, MP4, MOV או M4V',
    ],
  ])("keeps Apple's rules: refuses %s", async (_case, change, expected) => {
    const errors = await errorsOf({...sample('episode'), ...change})
    expect(
      errors.some((error) => error.startsWith(expected)),
      errors.join('\n'),
    ).toBe(true)
  })

  it("shows the editor the bytes left of Apple's 4000, a Hebrew letter counting two", async () => {
    expect(await errorsOf({...sample('episode'), description: 'שלום world'}, 'info')).toContain(
      'description: נותרו 3986 בתים מתוך 4000 בפיד (אות עברית היא 2 בתים).',
    )
    expect(await errorsOf({...sample('podcastSettings'), description: 'א'.repeat(2000)}, 'info')).toContain(
      'description: נותרו 0 בתים מתוך 4000 בפיד (אות עברית היא 2 בתים).',
    )
    expect(await errorsOf({...sample('podcastSettings'), description: 'א'.repeat(2000)})).toEqual([])
  })

  it("wants the show's artwork square and at least 1400 px, from the asset's dimensions", async () => {
    const artwork = (ref: string) => ({artwork: {_type: 'image', asset: {_type: 'reference', _ref: ref}}})
    expect(
      await errorsOf({
        ...sample('podcastSettings'),
        ...artwork('image-0123456789abcdef0123456789abcdef01234567-3000x2000-jpg'),
      }),
    ).toContain('artwork: התמונה צריכה להיות ריבועית (זו 3000×2000).')
    expect(
      await errorsOf({
        ...sample('podcastSettings'),
        ...artwork('image-0123456789abcdef0123456789abcdef01234567-1200x1200-jpg'),
      }),
    ).toContain('artwork: לפחות 1400×1400 פיקסלים (זו 1200×1200).')
    expect(await errorsOf({...sample('podcastSettings'), categories: ['Podcasts|Nonsense']})).toContainEqual(
      expect.stringMatching(/^categories/),
    )
  })

  it("refuses the show's artwork as WebP or GIF: Apple takes JPEG or PNG", async () => {
    const artwork = (format: string) => {
      const assetId = `image-0123456789abcdef0123456789abcdef01234567-3000x3000-${format}`
      ids.add(assetId) // an uploaded asset, as the reference check sees it
      return {artwork: {_type: 'image', asset: {_type: 'reference', _ref: assetId}}}
    }
    expect(await errorsOf({...sample('podcastSettings'), ...artwork('webp')})).toContain(
      'artwork: עטיפה רק בפורמט JPEG או PNG (זו WEBP).',
    )
    expect(await errorsOf({...sample('podcastSettings'), ...artwork('gif')})).toContain(
      'artwork: עטיפה רק בפורמט JPEG או PNG (זו GIF).',
    )
    expect(await errorsOf({...sample('podcastSettings'), ...artwork('png')})).toEqual([])
    expect(await errorsOf({...sample('podcastSettings'), ...artwork('jpg')})).toEqual([])
  })

  it('refuses audio Apple does not play: an audio/aac type or an .aac upload', async () => {
    expect(await errorsOf({...sample('episode'), audioType: 'audio/aac'})).toContainEqual(
      expect.stringMatching(/^audioType: Apple Podcasts מקבלת רק MP3, M4A, MP4, MOV או M4V .*audio\/aac לא נתמך\.$/),
    )
    const upload = (extension: string) => {
      const assetId = `file-0123456789abcdef0123456789abcdef01234567-${extension}`
      ids.add(assetId)
      return {
        audioUrl: undefined,
        audioLength: undefined,
        audioType: undefined,
        audioFile: {_type: 'file', asset: {_type: 'reference', _ref: assetId}},
      }
    }
    expect(await errorsOf({...sample('episode'), ...upload('aac')})).toContain(
      'audioFile: Apple Podcasts מקבלת רק קבצי MP3, M4A, MP4, MOV או M4V; קובץ .aac לא נתמך.',
    )
    for (const extension of ['mp3', 'm4a', 'mp4', 'mov', 'm4v'])
      expect(await errorsOf({...sample('episode'), ...upload(extension)})).toEqual([])
    for (const type of ['audio/x-m4a', 'video/quicktime'])
      expect(await errorsOf({...sample('episode'), audioType: type})).toEqual([])
  })

  it('refuses a transcript or funding URL a podcast app would fetch over http, or with a space', async () => {
    expect(await errorsOf({...sample('episode'), transcriptUrl: 'http://media.codetalks.example/ep.vtt'})).toContain(
      'transcriptUrl: קישור מלא, שמתחיל ב-https://',
    )
    expect(
      await errorsOf({...sample('episode'), transcriptUrl: 'https://media.codetalks.example/ep 1.vtt'}),
    ).toContainEqual(expect.stringMatching(/^transcriptUrl: קישור רק באותיות ASCII, בלי רווחים/))
    const funding = (url: string) => ({funding: {_type: 'object', url, text: 'תמכו'}})
    expect(await errorsOf({...sample('podcastSettings'), ...funding('http://codetalks.example/support')})).toContain(
      'funding.url: קישור מלא, שמתחיל ב-https://',
    )
    expect(await errorsOf({...sample('podcastSettings'), ...funding('https://codetalks.example/support')})).toEqual([])
  })

  it('refuses what the server would leave out of the Podcasting 2.0 tags, in Hebrew on the field that holds it', async () => {
    const episode = {...sample('episode'), duration: 300, season: undefined}
    const errors = await errorsOf({
      ...episode,
      seasonName: 'עונה בלי מספר',
      soundbites: [
        {_key: 'a', _type: 'soundbite', start: 0, duration: 10},
        {_key: 'b', _type: 'soundbite', start: 250, duration: 60},
      ],
      license: {_type: 'object', identifier: 'our-terms-v1'},
      alternateEnclosures: [
        {_key: 'a', _type: 'alternateEnclosure', url: 'http://m.test/1.opus', type: 'audio/opus', length: 1},
        {
          _key: 'b',
          _type: 'alternateEnclosure',
          url: 'https://m.test/1.mp3',
          type: 'audio/mpeg',
          length: 1,
          default: true,
        },
        {
          _key: 'c',
          _type: 'alternateEnclosure',
          url: 'https://n.test/1.mp3',
          type: 'audio/mpeg',
          length: 1,
          default: true,
        },
      ],
    })
    expect(errors).toEqual(
      expect.arrayContaining([
        'seasonName: לשם עונה צריך מספר עונה: מלאו את השדה "עונה".',
        'soundbites.[].duration: בין 15 ל-120 שניות.',
        'soundbites: קטע 1: אורך הקטע 10 שניות; הוא בין 15 ל-120 שניות. קטע 2: הקטע נגמר ב-5:10, אחרי סוף הפרק (5:00).',
        expect.stringMatching(/^license: "our-terms-v1" אינו רישיון מוכר/),
        'alternateEnclosures: 2 גרסאות מסומנות כברירת המחדל; רק אחת יכולה להיות: הקובץ הראשי עצמו בכתובת אחרת. גרסה 1: הקישור מתחיל ב-https:// וכתוב באותיות לטיניות (אותיות אחרות ורווחים בקידוד אחוזים).',
      ]),
    )
    const settingsErrors = await errorsOf({
      ...sample('podcastSettings'),
      license: {_type: 'object', identifier: 'CC-BY'},
    })
    expect(settingsErrors).toEqual(['license: מזהה הרישיון נכתב באותיות קטנות: "cc-by".'])
  })
})
