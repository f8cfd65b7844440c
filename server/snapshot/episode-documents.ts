// An episode's chapters and transcripts: made on first request into the bounded page cache, under
// the episode's item ETag (its bytes name the chapters and the transcript's revision), so snapshots
// share them and a crawl of every one cannot grow memory past the cache's bound. Served under the
// episode's own surrogate key: they change only with its item.
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import {chaptersDocument} from '../../catalog/v1/chapters.ts'
import type {Episode} from '../../catalog/v1/contract.ts'
import {MEDIA_TYPES, TRANSCRIPT_MEDIA_TYPES} from '../../catalog/media-types.ts'
import {cuesOf, transcriptSrt, transcriptVtt, type TranscriptExtension} from '../../catalog/v1/transcript.ts'
import type {DemandCaches} from './demand-caches.ts'
import {bufferOver} from './owned-bytes.ts'
import {ACCEPT_RANGES, represent, type Representation} from './representation.ts'
import {itemKey, listKey, type SurrogateKeying} from './surrogate-keys.ts'

// An episode's entry by its item, so its documents are found through the slug index, not a Map per snapshot.
const episodeOfItem = new WeakMap<Representation<Buffer>, CatalogEntry<Episode>>()

/** Notes which episode `item` was made from (as the snapshot makes it), for its documents. */
export function rememberEpisode(item: Representation<Buffer>, entry: CatalogEntry<Episode>): void {
  episodeOfItem.set(item, entry)
}

interface EpisodeDocumentsParts {
  /** The episode's item in this snapshot, by slug. */
  itemOf: (slug: string) => Representation<Buffer> | undefined
  pages: DemandCaches['pages']
  variants: DemandCaches['variants']
  keying: SurrogateKeying | undefined
}

interface EpisodeDocuments {
  /** An episode's chapters in the Podcasting 2.0 JSON chapters format; undefined when it has none. */
  chapters: (slug: string) => Representation<Buffer> | undefined
  /** An episode's transcript in one of its three formats; undefined when it holds none. */
  transcript: (slug: string, extension: TranscriptExtension) => Representation<Buffer> | undefined
}

export function episodeDocuments({itemOf, pages, variants, keying}: EpisodeDocumentsParts): EpisodeDocuments {
  const episodeDocument = (
    slug: string,
    name: string,
    make: (entry: CatalogEntry<Episode>) => {body: Buffer | string; contentType: string; ranges?: boolean} | undefined,
  ): Representation<Buffer> | undefined => {
    const episodeItem = itemOf(slug)
    const entry = episodeItem && episodeOfItem.get(episodeItem)
    if (!entry) return undefined
    const cacheKey = `${name} ${episodeItem.etag}`
    const cached = pages.get(cacheKey)
    if (cached) return cached
    const made = make(entry)
    if (!made) return undefined
    const keys = keying?.headersFor(itemKey('episodes', slug), listKey('episodes'))
    const document = represent(made.body, () => episodeItem.lastModified, {
      contentType: made.contentType,
      variants,
      headers: made.ranges ? {...keys, ...ACCEPT_RANGES} : keys,
    })
    pages.set(cacheKey, document)
    return document
  }
  return {
    chapters: (slug) =>
      episodeDocument(slug, 'chapters', ({value}) =>
        value.chapters ? {body: JSON.stringify(chaptersDocument(value)), contentType: MEDIA_TYPES.chapters} : undefined,
      ),
    // A player that seeks asks for part of a long transcript: its formats take ranges.
    transcript: (slug, extension) =>
      episodeDocument(slug, `transcript.${extension}`, (entry) =>
        entry.transcript
          ? {
              body: transcriptBody(entry.transcript, extension),
              contentType: TRANSCRIPT_MEDIA_TYPES[extension],
              ranges: true,
            }
          : undefined,
      ),
  }
}

/** The JSON transcript is served as the catalog holds it; the other two are made from its cues. */
function transcriptBody(bytes: Uint8Array, extension: TranscriptExtension): Buffer {
  if (extension === 'json') return bufferOver(bytes)
  const cues = cuesOf(bytes)
  return Buffer.from(extension === 'vtt' ? transcriptVtt(cues) : transcriptSrt(cues), 'utf8')
}
