// The chapter rules the Studio and the server share, called directly: each fault, its edges (equal
// times, a start exactly at the end), and the API's chapters with a link and an image.
import {describe, expect, it} from 'vitest'
import {
  chapterFaults,
  chaptersDocument,
  CHAPTER_TITLE_MAX_CHARACTERS,
  chaptersPath,
  chapterTitleFault,
  formatChapterTime,
  mapChapters,
  MAX_CHAPTERS,
} from '../../../catalog/v1/chapters.ts'
import {createLinks} from '../../../catalog/v1/links.ts'

const links = createLinks({
  publicBaseUrl: 'http://api.test',
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})
const chapter = (start: string | undefined, title: string | undefined, extra: Record<string, unknown> = {}) => ({
  start,
  title,
  ...extra,
})
const IMAGE = {_type: 'image', asset: {_ref: 'image-abc123-1400x1400-jpg'}}

describe('chapterFaults', () => {
  it('finds nothing wrong with times ascending from 0:00 within the duration, each titled', () => {
    expect(chapterFaults([chapter('0:00', 'א'), chapter('9:59', 'ב')], 600)).toEqual([])
    expect(chapterFaults([chapter('0:00', 'א'), chapter('2:00:00', 'ב')], null)).toEqual([])
    expect(chapterFaults([], 600)).toEqual([])
  })

  it(`takes ${MAX_CHAPTERS} chapters and refuses one more, whole`, () => {
    const many = Array.from({length: MAX_CHAPTERS + 1}, (_, index) => chapter(formatChapterTime(index), 'פרק'))
    expect(chapterFaults(many.slice(0, MAX_CHAPTERS), null)).toEqual([])
    expect(chapterFaults(many, null)).toEqual([{kind: 'too-many', count: MAX_CHAPTERS + 1}])
  })

  it('names a value that is not a chapter, a time that cannot be read, and a missing or blank title', () => {
    expect(chapterFaults([chapter('0:00', 'א'), 'מחרוזת', chapter('1:00', 'ב', {start: 60})], null)).toEqual([
      {kind: 'not-a-chapter', index: 1},
      {kind: 'not-a-chapter', index: 2},
    ])
    expect(chapterFaults([chapter('0:00', 'א'), chapter('דקה', 'ב'), chapter(undefined, 'ג')], null)).toEqual([
      {kind: 'time', index: 1, text: 'דקה'},
      {kind: 'time', index: 2, text: ''},
    ])
    expect(chapterFaults([chapter('0:00', '   '), chapter('1:00', undefined)], null)).toEqual([
      {kind: 'title', index: 0},
      {kind: 'title', index: 1},
    ])
  })

  it(`takes a title of ${CHAPTER_TITLE_MAX_CHARACTERS} characters, spaces around it not counted, and refuses a longer one`, () => {
    const longest = 'א'.repeat(CHAPTER_TITLE_MAX_CHARACTERS)
    expect(chapterTitleFault(`  ${longest}  `)).toBeUndefined()
    expect(chapterTitleFault(`${longest}ב`)).toBe('too-long')
    expect([chapterTitleFault(' '), chapterTitleFault(undefined), chapterTitleFault(null)]).toEqual([
      'missing',
      'missing',
      'missing',
    ])
    expect(chapterFaults([chapter('0:00', longest), chapter('1:00', `${longest}ב`)], null)).toEqual([
      {kind: 'title-too-long', index: 1, length: CHAPTER_TITLE_MAX_CHARACTERS + 1},
    ])
  })

  it('refuses a first chapter after 0:00, a time equal to the one before, and a start at the very end', () => {
    expect(chapterFaults([chapter('0:01', 'א')], null)).toEqual([{kind: 'first-not-zero', seconds: 1}])
    expect(chapterFaults([chapter('0:00', 'א'), chapter('0:00', 'ב')], null)).toEqual([
      {kind: 'not-ascending', index: 1, seconds: 0, previous: 0},
    ])
    expect(chapterFaults([chapter('0:00', 'א'), chapter('10:00', 'ב')], 600)).toEqual([
      {kind: 'past-duration', index: 1, seconds: 600, duration: 600},
    ])
  })

  it('compares a time with the last chapter whose time could be read', () => {
    expect(
      chapterFaults([chapter('0:00', 'א'), chapter('5:00', 'ב'), chapter('x', 'ג'), chapter('4:00', 'ד')], null),
    ).toEqual([
      {kind: 'time', index: 2, text: 'x'},
      {kind: 'not-ascending', index: 3, seconds: 240, previous: 300},
    ])
  })
})

describe('mapChapters', () => {
  it('gives no chapters, and no warning, for none or an empty list', () => {
    expect(mapChapters(null, 600, links)).toEqual({chapters: null, warnings: []})
    expect(mapChapters(undefined, 600, links)).toEqual({chapters: null, warnings: []})
    expect(mapChapters([], 600, links)).toEqual({chapters: null, warnings: []})
    expect(mapChapters('0:00 פתיחה', 600, links)).toEqual({
      chapters: null,
      warnings: ['chapters: left out: not a list'],
    })
  })

  it('words every fault of a refused list, in order', () => {
    const many = Array.from({length: MAX_CHAPTERS + 1}, () => chapter('0:00', 'א'))
    expect(mapChapters(many, null, links).warnings).toEqual([
      `chapters: left out: ${MAX_CHAPTERS + 1} chapters, more than 200`,
    ])
    expect(mapChapters([7, chapter('1:2', ''), chapter('1:00:00', 'ב')], 600, links)).toEqual({
      chapters: null,
      warnings: [
        'chapters: left out: chapter 1 is not a chapter object; chapter 2 has no title; ' +
          'chapter 2 starts at "1:2", which is neither mm:ss nor h:mm:ss; ' +
          "chapter 3 starts at 1:00:00, past the episode's end (10:00)",
      ],
    })
  })

  it('maps times to seconds, trims titles, keeps an https link and sizes the image for chapter art', () => {
    const {chapters, warnings} = mapChapters(
      [chapter('0:00', ' פתיחה '), chapter('1:02:03', 'סוף', {url: 'https://example.com/x', image: IMAGE})],
      4000,
      links,
    )
    expect(warnings).toEqual([])
    expect(chapters).toEqual([
      {start_seconds: 0, title: 'פתיחה', url: null, image_url: null},
      {start_seconds: 3723, title: 'סוף', url: 'https://example.com/x', image_url: links.artwork(IMAGE, 800)},
    ])
    expect(chapters?.[1]?.image_url).toMatch(/^https:\/\/cdn\.sanity\.io\/images\/proj\/prod\/abc123-1400x1400\.jpg\?/)
    expect(chapters?.[1]?.image_url).toMatch(/[?&]w=800\b/)
  })

  it('leaves out the image of a chapter whose asset the projection did not find, with a warning, and keeps the chapter', () => {
    const {chapters, warnings} = mapChapters(
      [
        chapter('0:00', 'א', {image: IMAGE, image_found: true}),
        chapter('0:30', 'ב', {image: IMAGE, image_found: false}),
      ],
      100,
      links,
    )
    expect(chapters?.map((item) => item.image_url)).toEqual([links.artwork(IMAGE, 800), null])
    expect(warnings).toEqual(['chapters.1.image: left out, its asset image-abc123-1400x1400-jpg does not exist'])
  })

  it('words a title over the limit with its length', () => {
    const long = chapter('0:00', 'א'.repeat(CHAPTER_TITLE_MAX_CHARACTERS + 5))
    expect(mapChapters([long], null, links)).toEqual({
      chapters: null,
      warnings: [
        `chapters: left out: chapter 1 has a title of 205 characters, more than ${CHAPTER_TITLE_MAX_CHARACTERS}`,
      ],
    })
  })

  it('writes the chapters document with the image and link only where a chapter has them', () => {
    const {chapters} = mapChapters([chapter('0:00', 'א', {image: IMAGE}), chapter('0:30', 'ב')], 100, links)
    expect(chaptersDocument({title: 'פרק', chapters})).toEqual({
      version: '1.2.0',
      title: 'פרק',
      chapters: [
        {startTime: 0, title: 'א', img: links.artwork(IMAGE, 800)},
        {startTime: 30, title: 'ב'},
      ],
    })
    expect(chaptersDocument({title: 'פרק', chapters: null})).toEqual({version: '1.2.0', title: 'פרק', chapters: []})
    expect(chaptersPath('ep-1')).toBe('episodes/ep-1/chapters.json')
  })
})
