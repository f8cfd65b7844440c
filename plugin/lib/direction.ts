import type {Path} from 'sanity'

export type TextDirection = 'rtl' | 'ltr'

// Content text is Hebrew; tags, roles, slugs, URLs and ids are Latin. Keyed by the top-level
// field of each catalog document type (FAQ questions and answers sit under `faq`).
const FIELD_DIRECTIONS: Record<string, Record<string, TextDirection>> = {
  episode: {
    title: 'rtl',
    description: 'rtl',
    takeaways: 'rtl',
    faq: 'rtl',
    chapters: 'rtl',
    soundbites: 'rtl',
    seasonName: 'rtl',
    alternateEnclosures: 'rtl',
    license: 'ltr',
    slug: 'ltr',
    tags: 'ltr',
    audioUrl: 'ltr',
    videoId: 'ltr',
    podcastDirectoryUrl: 'ltr',
  },
  meetup: {title: 'rtl', abstract: 'rtl', audience: 'rtl', slug: 'ltr', tags: 'ltr', videoId: 'ltr'},
  voice: {name: 'rtl', bio: 'rtl', slug: 'ltr', role: 'ltr', techStack: 'ltr', socialProfileUrl: 'ltr'},
  podcastSettings: {
    title: 'rtl',
    description: 'rtl',
    author: 'rtl',
    owner: 'rtl',
    funding: 'rtl',
    updateFrequency: 'rtl',
    podroll: 'rtl',
    guid: 'ltr',
    txts: 'ltr',
    newFeedUrl: 'ltr',
    license: 'ltr',
  },
}

// Latin inputs inside a right-to-left object or list: a chapter's start time and link, a version's link and
// type, an e-mail, a feed's id.
const NESTED_DIRECTIONS: Record<string, Record<string, TextDirection>> = {
  episode: {
    'chapters.start': 'ltr',
    'chapters.url': 'ltr',
    'alternateEnclosures.url': 'ltr',
    'alternateEnclosures.type': 'ltr',
  },
  podcastSettings: {
    'owner.email': 'ltr',
    'funding.url': 'ltr',
    'updateFrequency.rrule': 'ltr',
    'podroll.feedGuid': 'ltr',
    'podroll.feedUrl': 'ltr',
  },
}

/** The writing direction of the input at `path` in a document of `documentType`; undefined leaves the Studio's default. */
export function directionOf(documentType: unknown, path: Path): TextDirection | undefined {
  const field = path[0]
  if (typeof documentType !== 'string' || typeof field !== 'string') return undefined
  const last = path.at(-1)
  const nested =
    path.length > 1 && typeof last === 'string' ? NESTED_DIRECTIONS[documentType]?.[`${field}.${last}`] : undefined
  return nested ?? FIELD_DIRECTIONS[documentType]?.[field]
}
