// The podcast settings singleton as the feed's channel, Apple's artwork and category rules, and
// the service index: mapped from rows the test writes, no source.
import {describe, expect, it} from 'vitest'
import {APPLE_CATEGORY_CHOICES, isAppleCategory, parseCategoryChoice} from '../../../catalog/v1/apple-categories.ts'
import {ARTWORK_MIN_PIXELS, imageAssetDimensions, podcastArtworkSide} from '../../../catalog/v1/artwork.ts'
import {episodeNumberFromSlug, mapEpisode, type EpisodeRow} from '../../../catalog/v1/episode.ts'
import {createLinks} from '../../../catalog/v1/links.ts'
import {mapMeetup, meetupRowSchema} from '../../../catalog/v1/meetup.ts'
import {mapPodcastSettings} from '../../../catalog/v1/podcast-settings.ts'
import {mapVoice, voiceRowSchema} from '../../../catalog/v1/voice.ts'
import {buildServiceIndex} from '../../../server/api/v1/service-index.ts'
import {settingsRow, UNSET_CHANNEL_TAGS} from '../../helpers/catalog-mapping.ts'

const links = createLinks({
  publicBaseUrl: 'http://api.test',
  siteUrl: 'https://site.test',
  images: {projectId: 'proj', dataset: 'prod'},
})
const ASSET = 'image-abc123-3000x2000-jpg'
const artwork = (ref: string, crop?: {top: number; bottom: number; left: number; right: number}) => ({
  asset: {_ref: ref},
  ...(crop ? {crop} : {}),
})

const row = (fields: Record<string, unknown> = {}) =>
  settingsRow({
    artwork: artwork('image-abc123-1400x1400-png'),
    categories: ['Technology', 'Business|Careers'],
    hosts: [
      {slug: 'dana', _updatedAt: '2026-02-01T00:00:00Z'},
      {slug: 'noa', _updatedAt: '2025-12-01T00:00:00Z'},
    ],
    ...fields,
  })

describe('the podcast settings', () => {
  it('become the channel, with Apple defaults for what is not set', () => {
    expect(mapPodcastSettings(row(), links)).toEqual({
      ok: true,
      warnings: [],
      channel: {
        title: 'Code Talks',
        description: 'פודקאסט',
        author: 'Example',
        owner: {name: 'Owner', email: 'owner@example.com'},
        artworkUrl: 'https://cdn.sanity.io/images/proj/prod/abc123-1400x1400.png?w=1400&h=1400&fm=png&fit=crop',
        categories: [
          {category: 'Technology', subcategory: null},
          {category: 'Business', subcategory: 'Careers'},
        ],
        explicit: false,
        type: 'episodic',
        copyright: '© Example',
        hostSlugs: ['dana', 'noa'],
        funding: null,
        locked: true,
        guid: null,
        updatedAt: '2026-02-01T00:00:00Z',
        tags: UNSET_CHANNEL_TAGS,
      },
    })
  })

  it('take what is set, and the funding URL as its text when there is none', () => {
    const settings = mapPodcastSettings(
      row({
        explicit: true,
        show_type: 'serial',
        locked: false,
        guid: '9b3f6a8e-2c1d-4e5f-8a7b-0c1d2e3f4a5b',
        funding_url: 'https://fund.test',
        hosts: [],
      }),
      links,
    )
    expect(settings).toMatchObject({
      ok: true,
      channel: {
        explicit: true,
        type: 'serial',
        locked: false,
        guid: '9b3f6a8e-2c1d-4e5f-8a7b-0c1d2e3f4a5b',
        funding: {url: 'https://fund.test', text: 'https://fund.test'},
        updatedAt: '2026-01-01T00:00:00Z',
      },
    })
    expect(
      mapPodcastSettings(row({funding_url: 'https://fund.test', funding_text: 'Support us'}), links),
    ).toMatchObject({channel: {funding: {url: 'https://fund.test', text: 'Support us'}}})
    expect(Object.isFrozen(settings.ok && settings.channel)).toBe(true)
  })

  it('are refused with each field named: blank text, a long description, a bad email, an unknown category', () => {
    expect(mapPodcastSettings(row({title: '  '}), links)).toEqual({
      ok: false,
      messages: [expect.stringMatching(/^title: /)],
    })
    expect(mapPodcastSettings(row({description: 'א'.repeat(2000)}), links)).toEqual({
      ok: true,
      warnings: [],
      channel: expect.anything(),
    })
    expect(mapPodcastSettings(row({description: `${'א'.repeat(2000)}x`}), links)).toEqual({
      ok: false,
      messages: ['description: must be at most 4000 bytes (Apple Podcasts)'],
    })
    expect(mapPodcastSettings(row({owner_email: 'nobody'}), links)).toEqual({
      ok: false,
      messages: [expect.stringMatching(/^owner_email: /)],
    })
    expect(mapPodcastSettings(row({categories: ['Technology|Gadgets']}), links)).toEqual({
      ok: false,
      messages: ["categories.0: is not in Apple Podcasts' category list"],
    })
    expect(mapPodcastSettings(row({categories: []}), links)).toMatchObject({
      ok: false,
      messages: [expect.stringMatching(/^categories: /)],
    })
    expect(mapPodcastSettings(row({funding_url: 'ftp://fund.test'}), links)).toMatchObject({
      ok: false,
      messages: [expect.stringMatching(/^funding_url: /)],
    })
  })

  it('are refused with artwork smaller than 1400 px after its crop', () => {
    const refusal = {
      ok: false,
      messages: ['artwork: must be square JPEG or PNG artwork of at least 1400 px (Apple Podcasts)'],
    }
    expect(mapPodcastSettings(row({artwork: artwork('image-abc123-1399x3000-png')}), links)).toEqual(refusal)
    expect(mapPodcastSettings(row({artwork: artwork('not-an-asset-id')}), links)).toEqual(refusal)
  })
})

describe('podcast artwork', () => {
  it('reads the size and format an asset id spells', () => {
    expect(imageAssetDimensions(ASSET)).toEqual({width: 3000, height: 2000, format: 'jpg'})
    for (const id of [
      'image-abc-3000x2000',
      'file-abc-3000x2000-jpg',
      'image-abc-3000x2000-jpg-x',
      'image--3000x2000-jpg',
      'ximage-abc-1x1-png',
      'image-abc-3000-jpg',
    ])
      expect(imageAssetDimensions(id), id).toBeUndefined()
  })

  it('is the largest square the crop leaves, from 1400 px and capped at 3000', () => {
    expect(ARTWORK_MIN_PIXELS).toBe(1400)
    expect(podcastArtworkSide(artwork(ASSET))).toBe(2000)
    expect(podcastArtworkSide(artwork('image-abc-4000x5000-png'))).toBe(3000)
    expect(podcastArtworkSide(artwork('image-abc-1400x1400-png'))).toBe(1400)
    expect(podcastArtworkSide(artwork('image-abc-1399x1400-png'))).toBeUndefined()
    // 3000 wide less 10% and 20%: 2100; 2000 high less 10% and 5%: 1700.
    expect(podcastArtworkSide(artwork(ASSET, {left: 0.1, right: 0.2, top: 0.1, bottom: 0.05}))).toBe(1700)
    expect(podcastArtworkSide(artwork(ASSET, {left: 0.3, right: 0.3, top: 0, bottom: 0}))).toBe(undefined)
    expect(podcastArtworkSide(artwork('image-abc-3000x4000-png', {left: 0, right: 0, top: 0.25, bottom: 0.25}))).toBe(
      2000,
    )
    expect(podcastArtworkSide(artwork('image-abc-2001x2001-png', {left: 0.0004, right: 0, top: 0, bottom: 0}))).toBe(
      2000,
    )
  })
})

describe("Apple's categories", () => {
  it('take a category alone or with one of its own subcategories', () => {
    expect(isAppleCategory({category: 'Technology', subcategory: null})).toBe(true)
    expect(isAppleCategory({category: 'Arts', subcategory: 'Books'})).toBe(true)
    expect(isAppleCategory({category: 'Arts', subcategory: 'Careers'})).toBe(false)
    expect(isAppleCategory({category: 'Technology', subcategory: 'Books'})).toBe(false)
    expect(isAppleCategory({category: 'Gadgets', subcategory: null})).toBe(false)
    expect(isAppleCategory({category: 'constructor', subcategory: null})).toBe(false)
    expect(isAppleCategory({category: 'toString', subcategory: null})).toBe(false)
  })

  it('are chosen as `Category` or `Category|Subcategory`', () => {
    expect(parseCategoryChoice('Technology')).toEqual({category: 'Technology', subcategory: null})
    expect(parseCategoryChoice('Business|Careers')).toEqual({category: 'Business', subcategory: 'Careers'})
    expect(parseCategoryChoice('')).toEqual({category: '', subcategory: null})
    expect(APPLE_CATEGORY_CHOICES.slice(0, 3)).toEqual([
      {title: 'Arts', value: 'Arts'},
      {title: 'Arts › Books', value: 'Arts|Books'},
      {title: 'Arts › Design', value: 'Arts|Design'},
    ])
    expect(APPLE_CATEGORY_CHOICES.find((choice) => choice.value === 'Technology')).toEqual({
      title: 'Technology',
      value: 'Technology',
    })
    for (const choice of APPLE_CATEGORY_CHOICES)
      expect(isAppleCategory(parseCategoryChoice(choice.value)), choice.value).toBe(true)
  })
})

describe('an episode row', () => {
  const episodeRow = (fields: Partial<EpisodeRow> = {}): EpisodeRow => ({
    _id: 'e1',
    _updatedAt: '2026-01-01T00:00:00Z',
    slug: 'episode-12-x',
    episode_number: null,
    image: null,
    title: 't',
    description: 'd',
    language: 'he',
    published_at: '2026-01-01',
    tags: [],
    takeaways: [],
    faq: [],
    guests: [],
    audio_url: null,
    audio: null,
    duration_seconds: null,
    season: null,
    season_name: null,
    episode_type: null,
    explicit: null,
    transcript: null,
    video_id: null,
    podcast_directory_url: null,
    ...fields,
  })
  const context = {links, feedUrl: 'http://api.test/feed.xml', servedVoices: new Set(['dana'])}

  it('numbers the episode from its slug', () => {
    expect(
      ['ep-3', 'episode-12-x', '7-title', '0042', 'ep-x', 'title-3', 'ep3', 'episode-', '12a'].map(
        episodeNumberFromSlug,
      ),
    ).toEqual([3, 12, 7, 42, null, null, null, null, null])
  })

  it('gives the audio file only with its length and type, and types a transcript by its file name', () => {
    const value = (fields: Partial<EpisodeRow>) => mapEpisode(episodeRow(fields), context).value
    expect(value({audio: {url: 'https://a.test/1.mp3', length: 1000, type: 'audio/mpeg'}}).audio).toEqual({
      url: 'https://a.test/1.mp3',
      length_bytes: 1000,
      mime_type: 'audio/mpeg',
    })
    expect(value({audio: {url: 'https://a.test/1.mp3', length: null, type: 'audio/mpeg'}}).audio).toBeNull()
    expect(value({audio: {url: 'https://a.test/1.mp3', length: 0, type: 'audio/mpeg'}}).audio).toBeNull()
    expect(value({audio: {url: 'https://a.test/1.mp3', length: 1000, type: null}}).audio).toBeNull()
    expect(value({transcript: {url: 'https://t.test/a', name: 'Episode.VTT'}}).transcript).toEqual({
      url: 'https://t.test/a',
      mime_type: 'text/vtt',
    })
    expect(value({transcript: {url: 'https://t.test/a.srt?download=1', name: null}}).transcript).toEqual({
      url: 'https://t.test/a.srt?download=1',
      mime_type: 'application/x-subrip',
    })
    expect(value({transcript: {url: 'https://t.test/a.srt#t', name: null}}).transcript?.mime_type).toBe(
      'application/x-subrip',
    )
    expect(value({transcript: {url: 'https://t.test/a.txt', name: null}}).transcript).toBeNull()
    expect(value({transcript: {url: 'https://t.test/a.vtt.txt', name: null}}).transcript).toBeNull()
    expect(value({transcript: null}).transcript).toBeNull()
  })

  it('takes the episode type, explicitness and a video link when set', () => {
    const value = mapEpisode(episodeRow({episode_type: 'bonus', explicit: true, video_id: 'a b'}), context).value
    expect(value).toMatchObject({
      episode_type: 'bonus',
      explicit: true,
      video_url: 'https://www.youtube.com/watch?v=a%20b',
      artwork_url: null,
      image_url: null,
    })
    expect(mapEpisode(episodeRow(), context).value).toMatchObject({
      video_id: null,
      video_url: null,
      episode_type: 'full',
      explicit: false,
      episode_number: 12,
    })
  })

  it('has artwork only from an image large enough', () => {
    expect(mapEpisode(episodeRow({image: artwork('image-abc-1000x1000-jpg')}), context).value.artwork_url).toBeNull()
    expect(mapEpisode(episodeRow({image: artwork('image-abc-1500x1600-jpg')}), context).value.artwork_url).toBe(
      'https://cdn.sanity.io/images/proj/prod/abc-1500x1600.jpg?rect=0,50,1500,1500&w=1500&h=1500&fm=jpg&fit=crop',
    )
  })

  it('is dated by the latest of its own edit and its served guests, and warns of guests left out', () => {
    const mapped = mapEpisode(
      episodeRow({
        guests: [
          {slug: 'dana', _updatedAt: '2026-03-01T00:00:00Z'},
          {slug: 'ghost', _updatedAt: '2027-01-01T00:00:00Z'},
        ],
      }),
      context,
    )
    expect(mapped.updatedAt).toBe('2026-03-01T00:00:00Z')
    expect(mapped.warnings).toEqual(['guests: left out voice "ghost", which the catalog does not serve'])
    expect(mapped.value.guests).toEqual([
      {slug: 'dana', url: 'https://site.test/voices/dana', api_url: 'http://api.test/api/v1/voices/dana.json'},
    ])
    expect(
      mapEpisode(episodeRow({guests: [{slug: 'dana', _updatedAt: '2025-03-01T00:00:00Z'}]}), context).updatedAt,
    ).toBe('2026-01-01T00:00:00Z')
  })
})

describe('links', () => {
  it('name the site page, the API record, images, artwork, the feed and videos', () => {
    const made = createLinks({
      publicBaseUrl: 'https://api.example',
      siteUrl: 'https://www.example',
      images: {projectId: 'p1', dataset: 'd1'},
    })
    expect(made.page('meetups', 'm-1')).toBe('https://www.example/meetups/m-1')
    expect(made.api('voices', 'dana')).toBe('https://api.example/api/v1/voices/dana.json')
    expect(made.apiPath('all.json')).toBe('https://api.example/api/v1/all.json')
    expect(made.image(artwork('image-abc-800x600-png'), 400, 300)).toBe(
      'https://cdn.sanity.io/images/p1/d1/abc-800x600.png?w=400&h=300&fm=webp&fit=crop',
    )
    expect(made.feed).toBe('https://api.example/feed.xml')
    expect(made.video('a&b')).toBe('https://www.youtube.com/watch?v=a%26b')
  })

  it('name artwork after the format served: a PNG stays PNG, anything else is a .jpg served as JPEG', () => {
    const made = createLinks({
      publicBaseUrl: 'https://api.example',
      siteUrl: 'https://www.example',
      images: {projectId: 'p1', dataset: 'd1'},
    })
    expect(made.artwork(artwork('image-abc-1600x1600-png'), 1400)).toBe(
      'https://cdn.sanity.io/images/p1/d1/abc-1600x1600.png?w=1400&h=1400&fm=png&fit=crop',
    )
    expect(made.artwork(artwork('image-abc-1600x1600-jpg'), 1400)).toBe(
      'https://cdn.sanity.io/images/p1/d1/abc-1600x1600.jpg?w=1400&h=1400&fm=jpg&fit=crop',
    )
    expect(made.artwork(artwork('image-abc-2000x2000-webp'), 2000)).toBe(
      'https://cdn.sanity.io/images/p1/d1/abc-2000x2000.webp/artwork.jpg?w=2000&h=2000&fm=jpg&fit=crop',
    )
    expect(made.artwork(artwork('image-abc-2000x2000-gif'), 2000)).toBe(
      'https://cdn.sanity.io/images/p1/d1/abc-2000x2000.gif/artwork.jpg?w=2000&h=2000&fm=jpg&fit=crop',
    )
  })
})

describe('meetup and voice rows', () => {
  const context = () => ({
    links: createLinks({
      publicBaseUrl: 'https://api.example',
      siteUrl: 'https://www.example',
      images: {projectId: 'p1', dataset: 'd1'},
    }),
    feedUrl: 'f',
    servedVoices: new Set(['dana']),
  })

  it('link a meetup to its page and record, and warn of speakers left out', () => {
    const mapped = mapMeetup(
      meetupRowSchema.parse({
        _id: 'm',
        _updatedAt: '2026-01-01T00:00:00Z',
        slug: 'm-1',
        image: null,
        title: 't',
        abstract: null,
        language: 'he',
        published_date: '2026-01-01',
        tags: [],
        audience: [],
        video_id: 'v1',
        speakers: [
          {slug: 'dana', _updatedAt: '2026-02-01T00:00:00Z'},
          {slug: 'ghost', _updatedAt: '2026-03-01T00:00:00Z'},
        ],
      }),
      context(),
    )
    expect(mapped.value).toMatchObject({
      url: 'https://www.example/meetups/m-1',
      api_url: 'https://api.example/api/v1/meetups/m-1.json',
      video_url: 'https://www.youtube.com/watch?v=v1',
      image_url: null,
    })
    expect(mapped.value.speakers).toEqual([
      {slug: 'dana', url: 'https://www.example/voices/dana', api_url: 'https://api.example/api/v1/voices/dana.json'},
    ])
    expect(mapped.warnings).toEqual(['speakers: left out voice "ghost", which the catalog does not serve'])
    expect(mapped.updatedAt).toBe('2026-02-01T00:00:00Z')
  })

  it('link a voice to its page and record, dated by its own edit', () => {
    const mapped = mapVoice(
      voiceRowSchema.parse({
        _id: 'v',
        _updatedAt: '2026-01-01T00:00:00Z',
        slug: 'dana',
        image: null,
        name: 'דנה',
        role: 'מפתחת',
        bio: 'כותבת קוד',
        language: 'he',
        tech_stack: [],
        social_profile_url: null,
      }),
      context(),
    )
    expect(mapped).toEqual({
      value: expect.objectContaining({
        slug: 'dana',
        url: 'https://www.example/voices/dana',
        api_url: 'https://api.example/api/v1/voices/dana.json',
        image_url: null,
      }),
      updatedAt: '2026-01-01T00:00:00Z',
      warnings: [],
    })
  })
})

describe('the service index', () => {
  const settings = {publicBaseUrl: 'http://api.test', apiName: 'Catalog', feedUrl: 'http://api.test/feed.xml'}

  it('names the API, its documents and every endpoint', () => {
    expect(buildServiceIndex(links, settings)).toEqual({
      name: 'Catalog',
      description:
        'Read-only catalog of podcast episodes, internal meetup talks and speaker profiles. Content text is Hebrew; tags and roles are English.',
      version: 'v1',
      language: 'he',
      authentication: 'none',
      auth_documentation: 'http://api.test/auth.md',
      documentation: 'http://api.test/docs',
      openapi: 'http://api.test/api/openapi.json',
      feed_url: 'http://api.test/feed.xml',
      endpoints: {
        getServiceIndex: 'http://api.test/api/v1/index.json',
        listEpisodes: 'http://api.test/api/v1/episodes.json',
        getEpisode: 'http://api.test/api/v1/episodes/{slug}.json',
        listMeetups: 'http://api.test/api/v1/meetups.json',
        getMeetup: 'http://api.test/api/v1/meetups/{slug}.json',
        listVoices: 'http://api.test/api/v1/voices.json',
        getVoice: 'http://api.test/api/v1/voices/{slug}.json',
        getEverything: 'http://api.test/api/v1/all.json',
        searchCatalog: 'http://api.test/api/v1/search.json?q={q}',
        getChanges: 'http://api.test/api/v1/changes.json?since={token}',
        streamEvents: 'http://api.test/api/v1/events',
      },
    })
  })

  it('gives a contact only when one is configured', () => {
    expect(buildServiceIndex(links, {...settings, contactEmail: 'api@example.com'}).contact).toBe('api@example.com')
    expect('contact' in buildServiceIndex(links, {...settings, contactEmail: ''})).toBe(false)
  })

  it('links the feed on this origin', () => {
    expect(links.feed).toBe('http://api.test/feed.xml')
  })
})
