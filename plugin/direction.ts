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
    slug: 'ltr',
    tags: 'ltr',
    audioUrl: 'ltr',
    videoId: 'ltr',
    podcastDirectoryUrl: 'ltr',
  },
  meetup: {title: 'rtl', abstract: 'rtl', audience: 'rtl', slug: 'ltr', tags: 'ltr', videoId: 'ltr'},
  voice: {name: 'rtl', bio: 'rtl', slug: 'ltr', role: 'ltr', techStack: 'ltr', socialProfileUrl: 'ltr'},
}

/** The writing direction of the input at `path` in a document of `documentType`; undefined leaves the Studio's default. */
export function directionOf(documentType: unknown, path: Path): TextDirection | undefined {
  const field = path[0]
  if (typeof documentType !== 'string' || typeof field !== 'string') return undefined
  // A chapter's start time and link are Latin inside the right-to-left chapters list.
  const last = path.at(-1)
  if (field === 'chapters' && (last === 'start' || last === 'url')) return 'ltr'
  return FIELD_DIRECTIONS[documentType]?.[field]
}
