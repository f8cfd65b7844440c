import {describe, expect, it} from 'vitest'
import {mapCatalog} from '../../../catalog/v1/catalog.ts'
import {episodeNumberFromSlug} from '../../../catalog/v1/episode.ts'
import {createLinks} from '../../../catalog/v1/links.ts'
import {createEmbeddedSource} from '../../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../../server/content/ndjson.ts'
import {CATALOG_QUERY} from '../../../catalog/queries.ts'
import {settingsDocument} from '../../helpers/catalog-mapping.ts'
import {episode, guests, image, imageAsset, meetup, voice} from '../../fixtures/documents.ts'

const links = createLinks({
  publicBaseUrl: 'http://api.test',
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})

/** Runs the real CATALOG_QUERY with groq-js over the documents, then maps the result. */
async function catalogOf(documents: SanityDocument[]) {
  const source = createEmbeddedSource('inline', async () => [settingsDocument, ...documents])
  return mapCatalog(await source.fetch(CATALOG_QUERY), {links, feedUrl: 'https://site.test/feed.xml'})
}

describe('mapCatalog', () => {
  it('maps a complete episode to the contract', async () => {
    const asset = 'image-0123456789abcdef0123456789abcdef01234567-3000x3000-jpg'
    const catalog = await catalogOf([
      voice('dana'),
      imageAsset(asset),
      episode('ep-7-groq', {
        guests: guests('dana'),
        audioUrl: 'https://media.test/7.mp3',
        videoId: 'dQw4w9WgXcQ',
        coverImage: image(asset),
        takeaways: ['אחת'],
        faq: [{_key: 'a', _type: 'faqItem', question: 'שאלה?', answer: 'תשובה.'}],
        duration: 600,
        season: 2,
        seasonName: ' עונה שנייה ',
        soundbites: [
          {_key: 's1', _type: 'soundbite', start: 73.5, duration: 60, title: 'למה GROQ'},
          {_key: 's2', _type: 'soundbite', start: 480, duration: 120},
        ],
        license: {_type: 'object', identifier: 'cc-by-4.0'},
        alternateEnclosures: [
          {
            _key: 'a',
            _type: 'alternateEnclosure',
            url: 'https://media.test/7-low.opus',
            type: 'audio/opus',
            length: 1000,
          },
          {
            _key: 'b',
            _type: 'alternateEnclosure',
            url: 'https://media.test/7.mp4',
            type: 'video/mp4',
            length: 90000,
            bitrate: 1800000,
            height: 720,
            title: 'וידאו',
            default: false,
          },
        ],
      }),
    ])
    expect(catalog.problems).toEqual([])
    expect(catalog.episodes[0]?.value).toEqual({
      slug: 'ep-7-groq',
      url: 'https://site.test/episodes/ep-7-groq',
      api_url: 'http://api.test/api/v1/episodes/ep-7-groq.json',
      episode_number: 7,
      title: 'פרק לדוגמה',
      description: 'תקציר הפרק.',
      language: 'he',
      published_date: '2025-02-01',
      published_at: '2025-01-31T22:00:00.000Z',
      tags: ['testing'],
      guests: [
        {slug: 'dana', url: 'https://site.test/voices/dana', api_url: 'http://api.test/api/v1/voices/dana.json'},
      ],
      audio_url: 'https://media.test/7.mp3',
      video_id: 'dQw4w9WgXcQ',
      video_url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      podcast_directory_url: null,
      image_url: `https://cdn.sanity.io/images/proj/prod/0123456789abcdef0123456789abcdef01234567-3000x3000.jpg?w=800&h=800&fm=webp&fit=crop`,
      takeaways: ['אחת'],
      faq: [{question: 'שאלה?', answer: 'תשובה.'}],
      feed_url: 'https://site.test/feed.xml',
      duration_seconds: 600,
      season: 2,
      season_name: 'עונה שנייה',
      episode_type: 'full',
      explicit: false,
      audio: null,
      transcript: null,
      transcripts: [],
      transcript_revision: null,
      artwork_url: `https://cdn.sanity.io/images/proj/prod/0123456789abcdef0123456789abcdef01234567-3000x3000.jpg?w=3000&h=3000&fm=jpg&fit=crop`,
      chapters: null,
      soundbites: [
        {start_seconds: 73.5, duration_seconds: 60, title: 'למה GROQ'},
        {start_seconds: 480, duration_seconds: 120, title: null},
      ],
      license: {identifier: 'cc-by-4.0', url: null},
      alternate_enclosures: [
        {
          url: 'https://media.test/7-low.opus',
          mime_type: 'audio/opus',
          length_bytes: 1000,
          bitrate: null,
          height: null,
          title: null,
          default: false,
        },
        {
          url: 'https://media.test/7.mp4',
          mime_type: 'video/mp4',
          length_bytes: 90000,
          bitrate: 1800000,
          height: 720,
          title: 'וידאו',
          default: false,
        },
      ],
      chapters_url: null,
    })
  })

  it('leaves out a soundbite, an alternate enclosure, a license or a season name that breaks a rule, with a warning, and serves the episode', async () => {
    const catalog = await catalogOf([
      episode('ep-8-rules', {
        audioUrl: 'https://media.test/8.mp3',
        duration: 300,
        seasonName: 'בלי מספר',
        soundbites: [
          {_key: 's1', start: 10, duration: 10},
          {_key: 's2', start: 250, duration: 60},
          {_key: 's3', start: 0, duration: 15, title: 'בסדר'},
        ],
        license: {identifier: 'my-own-license'},
        alternateEnclosures: [
          {_key: 'a', url: 'http://media.test/8.opus', type: 'audio/opus', length: 1000},
          {_key: 'b', url: 'https://mirror.test/8.mp3', type: 'audio/mpeg', length: 2000, default: true},
          {_key: 'c', url: 'https://other.test/8.mp3', type: 'audio/mpeg', length: 2000, default: true},
          {_key: 'd', url: 'https://media.test/8.mp4', type: 'video/mp4', length: 3000},
        ],
      }),
    ])
    const served = catalog.episodes[0]?.value
    expect(served?.slug).toBe('ep-8-rules')
    expect(served?.soundbites).toEqual([{start_seconds: 0, duration_seconds: 15, title: 'בסדר'}])
    expect(served?.license).toBeNull()
    expect(served?.season_name).toBeNull()
    expect(served?.alternate_enclosures.map((alternate) => alternate.url)).toEqual(['https://media.test/8.mp4'])
    expect(catalog.problems).toEqual([
      {
        documentId: 'ep-8-rules',
        collection: 'episodes',
        severity: 'warning',
        messages: [
          'season_name: left out: the episode has no season number for it to name',
          'soundbites.0: left out: lasts 10 seconds, not 15 to 120',
          "soundbites.1: left out: ends at 5:10, past the episode's end (5:00)",
          expect.stringMatching(
            /^license: left out: "my-own-license" is not a known license .*needs the URL of its text$/,
          ),
          'alternate_enclosures.0: left out: "http://media.test/8.opus" is not an https URL in printable ASCII',
          expect.stringMatching(/^alternate_enclosures\.1: left out: one of 2 entries marked default/),
          expect.stringMatching(/^alternate_enclosures\.2: left out: one of 2 entries marked default/),
        ],
      },
    ])
  })

  it('sizes meetup thumbnails 800x450 and headshots 400x400', async () => {
    const asset = 'image-0123456789abcdef0123456789abcdef01234567-1920x1080-jpg'
    const catalog = await catalogOf([
      voice('dana', {headshot: image(asset)}),
      meetup('talk', {speakers: guests('dana'), thumbnail: image(asset)}),
    ])
    expect(catalog.meetups[0]?.value.image_url).toContain('w=800&h=450&fm=webp&fit=crop')
    expect(catalog.voices[0]?.value.image_url).toContain('w=400&h=400&fm=webp&fit=crop')
    expect(catalog.meetups[0]?.value.video_url).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ')
  })

  it('leaves out a document that breaks the contract, reports why, and serves the rest', async () => {
    const catalog = await catalogOf([
      episode('ok-episode'),
      episode('no-title', {title: undefined}),
      episode('bad-date', {publishedAt: '1st of May'}),
      episode('Bad_Slug'),
      episode('bad-tag', {tags: ['Not Lowercase']}),
      voice('no-bio', {bio: ''}),
      meetup('no-video', {videoId: undefined}),
    ])
    expect(catalog.episodes.map((entry) => entry.value.slug)).toEqual(['ok-episode'])
    expect(catalog.voices).toEqual([])
    expect(catalog.meetups).toEqual([])
    const rejected = Object.fromEntries(
      catalog.problems.map((problem) => [problem.documentId, problem.messages.join(' ')]),
    )
    expect(Object.keys(rejected).sort()).toEqual(['Bad_Slug', 'bad-date', 'bad-tag', 'no-bio', 'no-title', 'no-video'])
    expect(rejected['no-title']).toMatch(/^title:/)
    expect(rejected['bad-date']).toMatch(/^published_at:/)
    expect(rejected['Bad_Slug']).toMatch(/^slug:/)
    expect(rejected['no-video']).toMatch(/^video_id:/)
    expect(catalog.problems.every((problem) => problem.severity === 'rejected')).toBe(true)
  })

  it('drops references to voices it does not serve, with a warning, so every PersonRef resolves', async () => {
    const catalog = await catalogOf([
      voice('dana'),
      voice('broken', {role: undefined}),
      episode('ep-1', {guests: guests('dana', 'broken', 'missing')}),
    ])
    expect(catalog.episodes[0]?.value.guests.map((guest) => guest.slug)).toEqual(['dana'])
    expect(catalog.problems).toContainEqual({
      documentId: 'ep-1',
      collection: 'episodes',
      severity: 'warning',
      messages: ['guests: left out voice "broken", which the catalog does not serve'],
    })
  })

  it('serves one document per slug and reports the others', async () => {
    const catalog = await catalogOf([
      episode('same', {_id: 'first'}),
      episode('same', {_id: 'second', publishedAt: '2024-01-01'}),
    ])
    expect(catalog.episodes.map((entry) => entry.documentId)).toEqual(['first'])
    expect(catalog.problems).toEqual([
      {
        documentId: 'second',
        collection: 'episodes',
        severity: 'rejected',
        messages: ['slug: "same" is already used by another document in episodes'],
      },
    ])
  })

  it('dates an item by the latest edit among the documents it shows', async () => {
    const catalog = await catalogOf([
      voice('dana', {_updatedAt: '2025-06-01T00:00:00Z'}),
      episode('ep-1', {guests: guests('dana')}),
    ])
    expect(catalog.episodes[0]?.updatedAt).toBe('2025-06-01T00:00:00Z')
  })

  it('sorts voices by Hebrew collation and episodes newest first', async () => {
    const catalog = await catalogOf([
      voice('gal', {name: 'גל'}),
      voice('george', {name: 'ג׳ורג׳'}),
      voice('avi', {name: 'אבי'}),
      episode('older', {publishedAt: '2024-01-01'}),
      episode('b-same-day', {publishedAt: '2025-01-01'}),
      episode('a-same-day', {publishedAt: '2025-01-01'}),
    ])
    expect(catalog.voices.map((entry) => entry.value.slug)).toEqual(['avi', 'george', 'gal'])
    expect(catalog.episodes.map((entry) => entry.value.slug)).toEqual(['a-same-day', 'b-same-day', 'older'])
  })

  it('rejects a result that is not a catalog at all', () => {
    expect(() => mapCatalog({episodes: 'nope'}, {links, feedUrl: 'https://site.test/feed.xml'})).toThrow()
  })
})

describe('episodeNumberFromSlug', () => {
  it.each([
    ['ep-12-title', 12],
    ['episode-3', 3],
    ['42-answers', 42],
    ['special-live-2025', null],
    ['bonus-year-in-review-2025', null],
    ['ep12-no-dash', null],
  ])('%s -> %s', (slug, expected) => {
    expect(episodeNumberFromSlug(slug)).toBe(expected)
  })
})

describe('episode_number', () => {
  it('is the number entered, else the slug’s; 0 and none are null, and never drop the episode', async () => {
    const catalog = await catalogOf([
      episode('ep-0-trailer', {episodeType: 'trailer'}),
      episode('ep-5-bonus', {episodeType: 'bonus', episodeNumber: 0}),
      episode('ep-7-renumbered', {episodeNumber: 12}),
      episode('ep-8-from-slug'),
      episode('ep-9-negative', {episodeNumber: -3}),
    ])
    const numbers = Object.fromEntries(catalog.episodes.map((entry) => [entry.value.slug, entry.value.episode_number]))
    expect(numbers).toEqual({
      'ep-0-trailer': null,
      'ep-5-bonus': null,
      'ep-7-renumbered': 12,
      'ep-8-from-slug': 8,
      'ep-9-negative': 9,
    })
    expect(catalog.problems).toEqual([
      expect.objectContaining({documentId: expect.stringContaining('ep-9'), severity: 'warning'}),
    ])
  })
})
