import {describe, expect, it} from 'vitest'
import {mapCatalog} from '../../../catalog/v1/catalog.ts'
import {
  CHAPTER_TITLE_MAX_CHARACTERS,
  chaptersDocument,
  formatChapterTime,
  MAX_CHAPTERS,
  parseChapterTime,
} from '../../../catalog/v1/chapters.ts'
import {createLinks} from '../../../catalog/v1/links.ts'
import {createEmbeddedSource} from '../../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../../server/content/ndjson.ts'
import {CATALOG_QUERY} from '../../../catalog/queries.ts'
import {settingsDocument} from '../../helpers/catalog-mapping.ts'
import {episode, image, imageAsset} from '../../fixtures/documents.ts'

const links = createLinks({
  publicBaseUrl: 'http://api.test',
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})

async function catalogOf(documents: SanityDocument[]) {
  const source = createEmbeddedSource('inline', async () => [settingsDocument, ...documents])
  return mapCatalog(await source.fetch(CATALOG_QUERY), {links, feedUrl: 'https://site.test/feed.xml'})
}

const chapter = (start: string, title: string, extra: Record<string, unknown> = {}) => ({
  _key: `k${start.replaceAll(':', '')}`,
  _type: 'chapter',
  start,
  title,
  ...extra,
})

describe('chapter times', () => {
  it('reads mm:ss and h:mm:ss, and nothing else', () => {
    expect(parseChapterTime('0:00')).toBe(0)
    expect(parseChapterTime('12:30')).toBe(750)
    expect(parseChapterTime('75:05')).toBe(4505)
    expect(parseChapterTime('1:05:00')).toBe(3900)
    for (const text of ['', '12', '1:5', '12:60', '1:60:00', 'a:bc', '1:2:3:4', '-1:00'])
      expect(parseChapterTime(text), text).toBeUndefined()
    expect(formatChapterTime(750)).toBe('12:30')
    expect(formatChapterTime(3900)).toBe('1:05:00')
  })
})

describe('an episode with chapters', () => {
  it('serves them in seconds, with the chapters document linked', async () => {
    const catalog = await catalogOf([
      episode('ep-3-x', {
        duration: 1800,
        chapters: [chapter('0:00', 'פתיחה'), chapter('12:30', 'הנושא', {url: 'https://example.com/a'})],
      }),
    ])
    expect(catalog.problems).toEqual([])
    const value = catalog.episodes[0]?.value
    expect(value?.chapters).toEqual([
      {start_seconds: 0, title: 'פתיחה', url: null, image_url: null},
      {start_seconds: 750, title: 'הנושא', url: 'https://example.com/a', image_url: null},
    ])
    expect(value?.chapters_url).toBe('http://api.test/api/v1/episodes/ep-3-x/chapters.json')
    expect(value && chaptersDocument(value)).toEqual({
      version: '1.2.0',
      title: 'פרק לדוגמה',
      chapters: [
        {startTime: 0, title: 'פתיחה'},
        {startTime: 750, title: 'הנושא', url: 'https://example.com/a'},
      ],
    })
  })

  it('leaves out chapters that break the rules, and still serves the episode, with a warning', async () => {
    const catalog = await catalogOf([
      episode('out-of-order', {chapters: [chapter('0:00', 'א'), chapter('10:00', 'ב'), chapter('5:00', 'ג')]}),
      episode('late-start', {chapters: [chapter('0:10', 'א')]}),
      episode('past-end', {duration: 600, chapters: [chapter('0:00', 'א'), chapter('10:00', 'ב')]}),
      episode('no-title', {chapters: [chapter('0:00', '  ')]}),
      episode('bad-link', {chapters: [chapter('0:00', 'א', {url: 'http://example.com'})]}),
    ])
    expect(catalog.episodes.map((entry) => entry.value.slug).sort()).toEqual([
      'bad-link',
      'late-start',
      'no-title',
      'out-of-order',
      'past-end',
    ])
    const chaptersOf = (slug: string) => catalog.episodes.find((entry) => entry.value.slug === slug)?.value
    for (const slug of ['out-of-order', 'late-start', 'past-end', 'no-title']) {
      expect(chaptersOf(slug)?.chapters, slug).toBeNull()
      expect(chaptersOf(slug)?.chapters_url, slug).toBeNull()
    }
    expect(chaptersOf('bad-link')?.chapters).toEqual([{start_seconds: 0, title: 'א', url: null, image_url: null}])
    const warnings = Object.fromEntries(
      catalog.problems.map((problem) => [problem.documentId, `${problem.severity}: ${problem.messages.join(' ')}`]),
    )
    expect(warnings['out-of-order']).toBe(
      'warning: chapters: left out: chapter 3 starts at 5:00, not after the one before it (10:00)',
    )
    expect(warnings['late-start']).toMatch(/^warning: chapters: left out: the first chapter starts at 0:10/)
    expect(warnings['past-end']).toMatch(/past the episode's end \(10:00\)/)
    expect(warnings['no-title']).toMatch(/chapter 1 has no title/)
    expect(warnings['bad-link']).toMatch(/^warning: chapters\.0\.url: left out "http:\/\/example.com"/)
  })

  it('treats a chapter list that is not a list as no chapters, not as a broken episode, and reports it', async () => {
    const catalog = await catalogOf([
      episode('odd', {chapters: {start: '0:00', title: 'פתיחה'}}),
      episode('text', {chapters: '0:00 פתיחה'}),
    ])
    expect(catalog.episodes.map((entry) => entry.value.chapters)).toEqual([null, null])
    expect(catalog.problems).toEqual([
      {documentId: 'odd', collection: 'episodes', severity: 'warning', messages: ['chapters: left out: not a list']},
      {documentId: 'text', collection: 'episodes', severity: 'warning', messages: ['chapters: left out: not a list']},
    ])
  })

  it(`leaves out a list with a title over ${CHAPTER_TITLE_MAX_CHARACTERS} characters, and reports it with the document id`, async () => {
    const long = 'א'.repeat(20_000)
    const many = Array.from({length: MAX_CHAPTERS}, (_, index) => chapter(formatChapterTime(index), long))
    const catalog = await catalogOf([
      episode('huge', {chapters: many}),
      episode('at-limit', {chapters: [chapter('0:00', 'ב'.repeat(CHAPTER_TITLE_MAX_CHARACTERS))]}),
    ])
    const bySlug = (slug: string) => catalog.episodes.find((entry) => entry.value.slug === slug)?.value
    expect(bySlug('huge')?.chapters).toBeNull()
    expect(bySlug('huge')?.chapters_url).toBeNull()
    expect(JSON.stringify(bySlug('huge')).length).toBeLessThan(10_000)
    expect(bySlug('at-limit')?.chapters?.[0]?.title).toHaveLength(CHAPTER_TITLE_MAX_CHARACTERS)
    expect(catalog.problems).toEqual([
      {
        documentId: 'huge',
        collection: 'episodes',
        severity: 'warning',
        messages: [
          expect.stringMatching(
            new RegExp(
              `^chapters: left out: chapter 1 has a title of 20000 characters, more than ${CHAPTER_TITLE_MAX_CHARACTERS}; `,
            ),
          ),
        ],
      },
    ])
  })

  it('serves a chapter whose image names no asset without its image, and reports it', async () => {
    const catalog = await catalogOf([
      imageAsset('image-found-1400x1400-jpg'),
      episode('art', {
        chapters: [
          chapter('0:00', 'א', {image: image('image-found-1400x1400-jpg')}),
          chapter('1:00', 'ב', {image: image('image-gone-1400x1400-jpg')}),
        ],
      }),
    ])
    expect(catalog.episodes[0]?.value.chapters).toEqual([
      {
        start_seconds: 0,
        title: 'א',
        url: null,
        image_url: expect.stringMatching(/^https:\/\/cdn\.sanity\.io\/images\/proj\/prod\/found-1400x1400\.jpg\?/),
      },
      {start_seconds: 60, title: 'ב', url: null, image_url: null},
    ])
    expect(catalog.problems).toEqual([
      {
        documentId: 'art',
        collection: 'episodes',
        severity: 'warning',
        messages: ['chapters.1.image: left out, its asset image-gone-1400x1400-jpg does not exist'],
      },
    ])
  })
})
