// A chapter title's length, as the Studio validates it with Sanity's own validator (environment
// "studio") and as the plugin words it: the server's limit (catalog/v1/chapters.ts), in Hebrew,
// on the title's own field and not again on the list.
import {readFile} from 'node:fs/promises'
import {createClient} from '@sanity/client'
import {validateDocumentWithWorkspace} from '@sanity/validation'
import {getFallbackLocaleSource} from '@sanity/validation/_internal'
import {createSchema, type SanityDocument as StudioDocument} from 'sanity'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkChapters, checkChapterTitle} from '../../catalog/editor-rules/chapters.ts'
import {CHAPTER_TITLE_MAX_CHARACTERS} from '../../catalog/v1/chapters.ts'
import {parseNdjson} from '../../server/content/ndjson.ts'
import {schemaTypes} from '../../schemas/index.ts'
import {startSanityStandIn} from '../../support/sanity-stand-in.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const documents = parseNdjson(await readFile(SAMPLE_DATASET, 'utf8'), SAMPLE_DATASET)
const schema = createSchema({name: 'catalog', types: schemaTypes})
const episode = documents.find((document) => document._type === 'episode' && !document._id.startsWith('drafts.'))

const TOO_LONG = `כותרת המקטע ארוכה מדי: ${CHAPTER_TITLE_MAX_CHARACTERS + 1} תווים; לכל היותר ${CHAPTER_TITLE_MAX_CHARACTERS}.`
let standIn: Awaited<ReturnType<typeof startSanityStandIn>>
beforeAll(async () => {
  standIn = await startSanityStandIn(() => documents, {dataset: 'production'})
})
afterAll(() => standIn.close())

const chapter = (start: string, title: string) => ({_key: `k${start.replace(':', '')}`, _type: 'chapter', start, title})

async function chapterErrorsOf(chapters: unknown[]): Promise<string[]> {
  if (!episode) throw new Error('no published episode in the sample')
  const document: StudioDocument = {
    _createdAt: '2026-01-01T00:00:00Z',
    _updatedAt: '2026-01-01T00:00:00Z',
    _rev: 'rev',
    ...episode,
    duration: 3600,
    chapters,
  }
  const client = createClient({
    projectId: 'embedded',
    dataset: 'production',
    apiHost: standIn.apiHost,
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- still how a client reaches a stand-in host
    useProjectHostname: false,
    useCdn: false,
    apiVersion: '2025-02-19',
  })
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- runs the rules with the workspace's client, as the Studio does
  const markers = await validateDocumentWithWorkspace({
    document,
    workspace: {schema, getClient: () => client, i18n: getFallbackLocaleSource()},
    environment: 'studio',
    getDocumentExists: async () => true,
  })
  return markers
    .filter((marker) => marker.level === 'error' && marker.path[0] === 'chapters')
    .map(
      (marker) =>
        `${marker.path.map((segment) => (typeof segment === 'string' ? segment : '[]')).join('.')}: ${marker.message}`,
    )
}

describe('a chapter title', () => {
  it(`takes ${CHAPTER_TITLE_MAX_CHARACTERS} characters and refuses one more, in Hebrew`, () => {
    expect(checkChapterTitle('א'.repeat(CHAPTER_TITLE_MAX_CHARACTERS))).toBe(true)
    expect(checkChapterTitle(` ${'א'.repeat(CHAPTER_TITLE_MAX_CHARACTERS)} `)).toBe(true)
    expect(checkChapterTitle('א'.repeat(CHAPTER_TITLE_MAX_CHARACTERS + 1))).toBe(TOO_LONG)
    expect(checkChapterTitle(undefined)).toBe(true)
  })

  it('is said on the title field, not again on the list', async () => {
    const long = chapter('1:00', 'א'.repeat(CHAPTER_TITLE_MAX_CHARACTERS + 1))
    expect(checkChapters([chapter('0:00', 'פתיחה'), long], 3600)).toBe(true)
    expect(await chapterErrorsOf([chapter('0:00', 'פתיחה'), long])).toEqual([`chapters.[].title: ${TOO_LONG}`])
    expect(
      await chapterErrorsOf([chapter('0:00', 'פתיחה'), chapter('1:00', 'ב'.repeat(CHAPTER_TITLE_MAX_CHARACTERS))]),
    ).toEqual([])
  })
})
