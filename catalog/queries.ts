import {defineQuery} from 'groq'

// Every GROQ string the server runs lives here, so both content sources (groq-js over the
// embedded NDJSON, and the Sanity API) evaluate exactly the same text. GROQ resolves references
// and renames fields to the API's snake_case; the mappers add only what GROQ cannot.

// The published perspective already hides drafts and release versions on Sanity; the filter keeps
// the same guarantee for any source that hands us a raw export.
const published = `!(_id in path("drafts.**")) && !(_id in path("versions.**"))`

const personRefs = `{"slug": slug.current, _updatedAt}`

// Chapters (and transcripts, soundbites, alternate enclosures, a license) not of their shape pass
// as they are, for the mapper to report rather than GROQ to drop; each chapter image says whether
// its asset exists, since the image URL is built from the reference alone.
const episodeProjection = `{
  _id,
  _updatedAt,
  "slug": slug.current,
  "episode_number": episodeNumber,
  title,
  description,
  language,
  "published_at": publishedAt,
  "tags": coalesce(tags, []),
  "guests": coalesce(guests[defined(@->slug.current)]->${personRefs}, []),
  "audio_url": coalesce(audioFile.asset->url, audioUrl),
  "audio": select(
    defined(audioFile.asset) => audioFile.asset->{url, "length": size, "type": mimeType},
    defined(audioUrl) => {"url": audioUrl, "length": audioLength, "type": audioType}
  ),
  "duration_seconds": duration,
  season,
  "season_name": seasonName,
  "episode_type": episodeType,
  explicit,
  "transcript": select(
    defined(transcriptFile.asset) => transcriptFile.asset->{url, "name": originalFilename},
    defined(transcriptUrl) => {"url": transcriptUrl, "name": transcriptUrl}
  ),
  "transcript_cues": select(
    defined(count(transcript)) => transcript[]{start, end, "speaker": coalesce(speaker->name, speakerName), text},
    transcript
  ),
  "video_id": videoId,
  "podcast_directory_url": podcastDirectoryUrl,
  "image": coverImage,
  "takeaways": coalesce(takeaways, []),
  "faq": coalesce(faq[]{question, answer}, []),
  "chapters": select(
    defined(count(chapters)) => chapters[]{start, title, url, image, "image_found": defined(image.asset->_id)},
    chapters
  ),
  "soundbites": select(defined(count(soundbites)) => soundbites[]{start, duration, title}, soundbites),
  "license": select(defined(license.identifier) || defined(license.url) => license{identifier, url}, license),
  "alternate_enclosures": select(
    defined(count(alternateEnclosures)) => alternateEnclosures[]{url, type, length, bitrate, height, title, default},
    alternateEnclosures
  )
}`

const meetupProjection = `{
  _id,
  _updatedAt,
  "slug": slug.current,
  title,
  abstract,
  language,
  "published_date": talkDate,
  "tags": coalesce(tags, []),
  "audience": coalesce(audience, []),
  "speakers": coalesce(speakers[defined(@->slug.current)]->${personRefs}, []),
  "video_id": videoId,
  "image": thumbnail
}`

const voiceProjection = `{
  _id,
  _updatedAt,
  "slug": slug.current,
  name,
  role,
  bio,
  language,
  "tech_stack": coalesce(techStack, []),
  "social_profile_url": socialProfileUrl,
  "image": headshot
}`

/** The podcast's settings singleton, with its hosts resolved: what the feed's `<channel>` says. */
const podcastSettingsProjection = `{
  _id,
  _updatedAt,
  title,
  description,
  author,
  "owner_name": owner.name,
  "owner_email": owner.email,
  "artwork": artwork,
  "categories": coalesce(categories, []),
  explicit,
  "show_type": showType,
  copyright,
  "hosts": coalesce(hosts[defined(@->slug.current)]->{"slug": slug.current, _updatedAt}, []),
  "funding_url": funding.url,
  "funding_text": funding.text,
  locked,
  guid,
  "txts": txts[]{text, purpose},
  medium,
  "update_frequency": updateFrequency{text, rrule, start, complete},
  "podroll": podroll[]{"feed_guid": feedGuid, "feed_url": feedUrl, title},
  "new_feed_url": newFeedUrl,
  block,
  complete,
  "license": select(defined(license.identifier) || defined(license.url) => license{identifier, url}, license)
}`

const podcastSettings = `*[_id == "podcastSettings"][_type == "podcastSettings"][0] ${podcastSettingsProjection}`

/**
 * The whole published catalog in one request, so one snapshot is one consistent read.
 * Episodes and meetups come newest first with the slug as tie-breaker; voices are ordered by the
 * mapper with a Hebrew collator, since GROQ's order() compares code points.
 */
export const CATALOG_QUERY = defineQuery(`{
  "episodes": *[_type == "episode"][${published}] | order(publishedAt desc, slug.current asc) ${episodeProjection},
  "meetups": *[_type == "meetup"][${published}] | order(talkDate desc, slug.current asc) ${meetupProjection},
  "voices": *[_type == "voice"][${published}] ${voiceProjection},
  "podcast": ${podcastSettings}
}`)

/** The settings singleton alone: a paged catalog read asks for it beside its pages, a settings publish rebuilds from it. */
export const PODCAST_SETTINGS_QUERY = defineQuery(podcastSettings)

/** How many documents one request of a paged catalog read asks for (about 10 MB of JSON). */
export const CATALOG_PAGE_SIZE = 10_000

/**
 * The same catalog as CATALOG_QUERY, a page at a time, for a source where one response of the
 * whole catalog would be too large: documents of the three types by ascending _id after `$after`
 * (keyset pagination, as Sanity recommends: no slice offset to skip through), each with its
 * type's projection. The mapper orders each collection itself, so the pages need no other order.
 * `_id > $after` is a filter of its own so that groq-js tests it before anything else.
 */
export const CATALOG_PAGE_QUERY =
  defineQuery(`*[_id > $after][_type in ["episode", "meetup", "voice"] && ${published}] | order(_id asc) [0...${CATALOG_PAGE_SIZE}] {
  _type,
  _type == "episode" => ${episodeProjection},
  _type == "meetup" => ${meetupProjection},
  _type == "voice" => ${voiceProjection}
}`)

// One published document by id, with the same projection as the catalog: webhooks name the
// document that changed, so a rebuild reads only that one. The id gets a filter of its own
// (same meaning as `&&`): an engine that scans (groq-js evaluates every operand for every
// document) then tests the type and the perspective on one document only.
export const EPISODE_BY_ID_QUERY = defineQuery(
  `*[_id == $id][_type == "episode" && ${published}][0] ${episodeProjection}`,
)
export const MEETUP_BY_ID_QUERY = defineQuery(`*[_id == $id][_type == "meetup" && ${published}][0] ${meetupProjection}`)
export const VOICE_BY_ID_QUERY = defineQuery(`*[_id == $id][_type == "voice" && ${published}][0] ${voiceProjection}`)

// Episodes and meetups show the slugs of the voices they link to, so a voice change re-reads the
// documents that link to it (and only those), with the catalog's projections. The filter looks in
// the two reference fields, not the whole document as references() does: 10x faster in groq-js.
export const REFERENCING_QUERY = defineQuery(`{
  "episodes": *[_type == "episode" && ($id in guests[]._ref || $id in transcript[].speaker._ref)][${published}] ${episodeProjection},
  "meetups": *[_type == "meetup" && $id in speakers[]._ref][${published}] ${meetupProjection}
}`)

// What changes whenever the published catalog does: a publish or an edit moves the newest
// _updatedAt, an unpublish or a deletion the count. Cheap on the Content Lake (no projection).
export const FINGERPRINT_QUERY = defineQuery(`{
  "documents": count(*[_type in ["episode", "meetup", "voice", "podcastSettings"]][${published}]),
  "updated": *[_type in ["episode", "meetup", "voice", "podcastSettings"]][${published}] | order(_updatedAt desc) [0]._updatedAt
}`)

// One document by id whatever its state: the Studio's "API" view runs these with the drafts
// perspective over the document being edited, so editors see what publishing it would serve.
export const EPISODE_PREVIEW_QUERY = defineQuery(`*[_id == $id][0] ${episodeProjection}`)
export const MEETUP_PREVIEW_QUERY = defineQuery(`*[_id == $id][0] ${meetupProjection}`)
export const VOICE_PREVIEW_QUERY = defineQuery(`*[_id == $id][0] ${voiceProjection}`)

// The Studio's feed preview: the voices an episode's <item> names (its guests and the show's hosts).
export const VOICES_BY_SLUG_QUERY = defineQuery(`*[_type == "voice" && slug.current in $slugs] ${voiceProjection}`)
