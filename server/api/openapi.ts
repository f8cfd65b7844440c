import {z} from 'zod'
import {createDocument} from 'zod-openapi'
import {API_V1_PREFIX} from '../../catalog/v1/links.ts'
import {chaptersDocumentSchema} from '../../catalog/v1/chapters.ts'
import {TRANSCRIPT_FORMATS, transcriptDocumentSchema, type TranscriptExtension} from '../../catalog/v1/transcript.ts'
import {changesEnvelope} from './v1/changes.ts'
import {SEARCH_QUERY_MAX_LENGTH, searchEnvelope} from './v1/search.ts'
import {
  bulkSchema,
  episodeSchema,
  itemEnvelope,
  listEnvelope,
  meetupSchema,
  serviceIndexSchema,
  voiceSchema,
} from '../../catalog/v1/contract.ts'
import {MEDIA_TYPES} from '../../catalog/media-types.ts'
import {
  changesParameters,
  conditionalHeaders,
  pageParameters,
  problem,
  rangeHeaders,
  readOnly,
  retryAfter,
  searchParameters,
  slugParameter,
  successHeaders,
} from './openapi-parts.ts'

export interface OpenApiSettings {
  publicBaseUrl: string
  apiName: string
  contactEmail?: string | undefined
}

/** `GET /events`: a server-sent event stream, not a document (server/http/event-streams.ts). */
const eventsOperation = {
  get: {
    operationId: 'streamEvents',
    summary: 'Live events: one per published version',
    description:
      'A server-sent event stream (`text/event-stream`, for `EventSource`): each newly served version sends one event whose `id` is its `Catalog-Version` and whose `data` is `{"version", "changes": [{"type", "slug", "deleted"}]}`, the items whose bytes that version changed (fetch them, or ask `changes.json?since=` for them whole). A reconnecting client sends `Last-Event-ID` (or `?since=`): what it missed comes as one collapsed event, or, when its version is older than the server\'s history, as `event: reset` (start again from `changes.json` without `since`). A comment every 10 s keeps proxies from closing an idle stream. Each stream ends after 22.5 to 30 minutes: an EventSource reconnects by itself after `retry`; another client reconnects with the last `id` it read. At most `EVENT_STREAMS_MAX` streams (10,000 by default), one client address at most a sixteenth of them. Never cached. HEAD is accepted too.',
    tags: ['Service'],
    security: [],
    requestParams: {
      query: z.object({
        since: z
          .string()
          .optional()
          .meta({description: 'The last `Catalog-Version` seen, where `Last-Event-ID` cannot be sent.'}),
      }),
      header: z.object({
        'last-event-id': z
          .string()
          .optional()
          .meta({description: "The last event's id, which an EventSource sends when it reconnects."}),
      }),
    },
    responses: {
      200: {
        description:
          'The stream: `retry: 3000` and an `id` with no data (the version served, so that a client that drops before the first change resumes from it), then one event per published version, until the stream ends at its age (22.5 to 30 minutes) or the server stops.',
        content: {
          'text/event-stream': {
            schema: z.string().meta({
              examples: [
                'retry: 3000\nid: 3jW0e2cKqgS4mZ2qL1xYb7HfTn8uVd5A\n\nid: 9QpL2sX7wV4kR1tY8uN3mB6cZ0aE5dHg\ndata: {"version":"9QpL2sX7wV4kR1tY8uN3mB6cZ0aE5dHg","changes":[{"type":"episode","slug":"ep-1-why-we-started","deleted":false}]}\n\n',
              ],
            }),
          },
        },
      },
      405: readOnly,
      429: problem('This client address holds its share of the streams already.', retryAfter),
      503: problem('The server holds as many streams as it may; retry later.', retryAfter),
    },
  },
}

const TRANSCRIPT_OPERATIONS: Record<TranscriptExtension, string> = {
  vtt: 'getEpisodeTranscriptVtt',
  srt: 'getEpisodeTranscriptSrt',
  json: 'getEpisodeTranscriptJson',
}
const TRANSCRIPT_FORMAT_NAMES: Record<TranscriptExtension, string> = {
  vtt: 'WebVTT with `<v Speaker>` voice spans',
  srt: 'SubRip, each speaker as a `Name: ` prefix',
  json: 'the Podcasting 2.0 JSON transcript',
}

function operation(options: {
  operationId: string
  summary: string
  description: string
  tag: string
  schema: z.ZodType
  path?: boolean
  page?: boolean
  /** Query parameters of its own, and what a 400 says about them. */
  query?: {parameters: z.ZodObject; badRequest: string}
  /** What a 410 means here besides v1's sunset. */
  gone?: string
  mediaType?: string
  /** Takes a `Range` of one byte range (RFC 9110 §14): a 206 with that part, a 416 past the end. */
  ranges?: boolean
  /** What a 503 with Retry-After means here, when it can be answered one. */
  unavailable?: string
}) {
  const query = options.page ? pageParameters : options.query?.parameters
  return {
    get: {
      operationId: options.operationId,
      summary: options.summary,
      description: `${options.description} HEAD is accepted too.`,
      tags: [options.tag],
      security: [],
      requestParams: {
        ...(options.path ? {path: slugParameter} : {}),
        ...(query ? {query} : {}),
        header: options.ranges ? conditionalHeaders.extend(rangeHeaders.shape) : conditionalHeaders,
      },
      responses: {
        200: {
          description: 'OK',
          headers: successHeaders,
          content: {[options.mediaType ?? 'application/json']: {schema: options.schema}},
        },
        ...(options.ranges
          ? {
              206: {
                description: 'Partial Content: the one byte range asked for.',
                headers: successHeaders.extend({
                  'content-range': z.string().meta({description: '`bytes first-last/length`.'}),
                }),
                content: {[options.mediaType ?? 'application/json']: {schema: z.string()}},
              },
              416: {
                description: 'Range Not Satisfiable: the range starts past the end.',
                headers: z.object({'content-range': z.string().meta({description: '`bytes */length`.'})}),
              },
            }
          : {}),
        304: {
          description: 'Not Modified: the validators you sent match.',
          headers: successHeaders.pick({etag: true, 'last-modified': true, 'cache-control': true}),
        },
        412: {
          description:
            'Precondition Failed: If-Match or If-Unmodified-Since does not hold. No body; evaluated before If-None-Match, as RFC 9110 §13.2.2 orders them.',
          headers: successHeaders.pick({etag: true, 'last-modified': true}),
        },
        400: problem(
          options.query?.badRequest ??
            (options.page ? 'A bad `limit` or `cursor`, or a malformed URL.' : 'A malformed URL.'),
        ),
        404: problem(
          options.path
            ? 'No item has this slug. Re-read the list; slugs change only when content is renamed.'
            : 'No such path.',
        ),
        405: readOnly,
        410: problem(
          `${options.gone ?? ''}v1 has passed its \`Sunset\` date; the \`Link\` header names the successor version.`,
          z.object({link: z.string()}),
        ),
        429: problem('Rate limit exceeded.', retryAfter),
        500: problem('Origin or CDN fault; the payload is static, so retrying with backoff is safe.'),
        ...(options.unavailable ? {503: problem(options.unavailable, retryAfter)} : {}),
      },
    },
  }
}

/** The OpenAPI 3.1 description of `/api/v1`, generated from the zod contract so the two cannot drift. */
export function buildOpenApiDocument(settings: OpenApiSettings) {
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: settings.apiName,
        version: 'v1',
        description: [
          'Read-only catalog of podcast episodes, internal meetup talks and speaker profiles, served as static JSON. Content text is Hebrew; tags and roles are English.',
          'There is no authentication. Cite content by its `url`, not its `api_url`. Clients must ignore unknown fields.',
          'Content rights: audio, video, artwork and written content belong to the publisher; catalog metadata (titles, dates, slugs, tags, URLs) may be reused with attribution.',
        ].join('\n\n'),
        ...(settings.contactEmail ? {contact: {email: settings.contactEmail}} : {}),
        license: {
          name: 'Catalog metadata may be reused with attribution; audio, video, artwork and written content belong to the publisher',
          url: `${settings.publicBaseUrl}/docs#content-rights`,
        },
      },
      servers: [
        {url: `${settings.publicBaseUrl}${API_V1_PREFIX}`, description: 'Live API'},
        {
          url: `${settings.publicBaseUrl}${API_V1_PREFIX}/sandbox`,
          description: 'Sandbox: the same read-only documents, byte for byte',
        },
      ],
      security: [],
      tags: [
        {name: 'Service', description: 'The service index and the whole catalog in one document.'},
        {name: 'Episodes', description: 'Podcast episodes, newest first.'},
        {name: 'Meetups', description: 'Internal meetup talks, newest first.'},
        {name: 'Voices', description: 'Speaker profiles, in Hebrew name order.'},
        {name: 'Search', description: 'Episodes, meetup talks and speakers ranked for a query, in Hebrew or English.'},
      ],
      externalDocs: {description: 'Developer portal', url: `${settings.publicBaseUrl}/docs`},
      paths: {
        '/index.json': operation({
          operationId: 'getServiceIndex',
          summary: 'Service index',
          description: 'What the API is and where its endpoints are.',
          tag: 'Service',
          schema: itemEnvelope(serviceIndexSchema),
        }),
        '/episodes.json': operation({
          operationId: 'listEpisodes',
          summary: 'List episodes',
          description: 'Every published episode, newest first.',
          tag: 'Episodes',
          schema: listEnvelope(episodeSchema),
          page: true,
        }),
        '/episodes/{slug}.json': operation({
          operationId: 'getEpisode',
          summary: 'Get an episode',
          description: 'One episode by slug.',
          tag: 'Episodes',
          schema: itemEnvelope(episodeSchema),
          path: true,
        }),
        '/episodes/{slug}/chapters.json': operation({
          operationId: 'getEpisodeChapters',
          summary: "Get an episode's chapters",
          description:
            "The episode's chapters in the Podcasting 2.0 JSON chapters format, as its feed item's `podcast:chapters` links them; the episode's `chapters_url`. 404 when the episode has no chapters.",
          tag: 'Episodes',
          schema: chaptersDocumentSchema,
          path: true,
          mediaType: MEDIA_TYPES.chapters,
        }),
        ...Object.fromEntries(
          TRANSCRIPT_FORMATS.map((format) => [
            `/episodes/{slug}/transcript.${format.extension}`,
            operation({
              operationId: TRANSCRIPT_OPERATIONS[format.extension],
              summary: `Get an episode's transcript as ${TRANSCRIPT_FORMAT_NAMES[format.extension]}`,
              description: `The transcript the episode holds, as ${TRANSCRIPT_FORMAT_NAMES[format.extension]} (\`${format.mimeType}\`), made from the same cues as its other two formats and listed in its \`transcripts\` and its feed item's \`podcast:transcript\`. 404 when its \`transcript_revision\` is null (no transcript, or only an external link).`,
              tag: 'Episodes',
              schema: format.extension === 'json' ? transcriptDocumentSchema : z.string(),
              path: true,
              mediaType: format.mimeType,
              ranges: true,
            }),
          ]),
        ),
        '/meetups.json': operation({
          operationId: 'listMeetups',
          summary: 'List meetup talks',
          description: 'Every meetup talk, newest first.',
          tag: 'Meetups',
          schema: listEnvelope(meetupSchema),
          page: true,
        }),
        '/meetups/{slug}.json': operation({
          operationId: 'getMeetup',
          summary: 'Get a meetup talk',
          description: 'One meetup talk by slug.',
          tag: 'Meetups',
          schema: itemEnvelope(meetupSchema),
          path: true,
        }),
        '/voices.json': operation({
          operationId: 'listVoices',
          summary: 'List speakers',
          description: 'Every speaker, sorted by Hebrew name.',
          tag: 'Voices',
          schema: listEnvelope(voiceSchema),
          page: true,
        }),
        '/voices/{slug}.json': operation({
          operationId: 'getVoice',
          summary: 'Get a speaker',
          description: 'One speaker by slug; resolve PersonRefs here for role and biography.',
          tag: 'Voices',
          schema: itemEnvelope(voiceSchema),
          path: true,
        }),
        '/all.json': operation({
          operationId: 'getEverything',
          summary: 'The whole catalog',
          description: 'Episodes, meetups and voices in one document; use it instead of looping the three lists.',
          tag: 'Service',
          schema: bulkSchema,
        }),
        '/changes.json': operation({
          operationId: 'getChanges',
          summary: 'What changed since a token',
          description:
            'Every item whose served bytes differ between the version `since` names and now, each once in its state now, ordered by type and slug: an edit, a new item, a deletion or unpublishing (`deleted: true`), a slug rename (a deletion of the old slug and the new one), and an item changed through another document (a voice renamed changes the episodes naming it). Drafts, release versions and episodes scheduled ahead never appear; a scheduled episode appears when it is released. Without `since`, the whole catalog (an initial sync). The server remembers every version of the last 30 days and at least the last 1,000 (up to 100,000 versions and 200,000 item changes), across restarts with SNAPSHOT_DIR.',
          tag: 'Service',
          schema: changesEnvelope,
          query: {
            parameters: changesParameters,
            badRequest:
              'A `since` that is not a Catalog-Version token, a bad `limit` or `cursor`, or a malformed URL. The detail says to start again without `since`.',
          },
          gone: 'A `since` this server no longer remembers (older than its history): start again without `since`. Or: ',
        }),
        '/events': eventsOperation,
        '/search.json': operation({
          operationId: 'searchCatalog',
          summary: 'Search the catalog',
          description:
            'Episodes, meetup talks and speakers ranked for `q`, best first: the ranking of the MCP tool `search_catalog` (BM25+ over titles, tags, speakers, takeaways, descriptions, FAQ and transcripts, with one typo in five letters and prefixes forgiven). A query that matches nothing (punctuation, another script) is a 200 with no hits. Answers change with any published content.',
          tag: 'Search',
          schema: searchEnvelope,
          query: {
            parameters: searchParameters,
            badRequest: `A missing or empty \`q\`, one longer than ${SEARCH_QUERY_MAX_LENGTH} characters, a bad \`limit\`, or a malformed URL.`,
          },
          unavailable:
            'The search index is being built: a large catalog (thousands of items, or megabytes of transcripts) is indexed in the background on its first search after a start, so that no other request waits for it. Retry after `Retry-After` seconds. A publish that changes more than a few thousand items (or megabytes of transcripts) has the index built again the same way.',
        }),
      },
    },
    {
      // Our own output is strict (tests catch drift), but clients must ignore unknown fields and
      // additive changes ship without a version bump, so the published schemas stay open.
      override: ({jsonSchema}) => {
        if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties
      },
    },
  )
  return document
}
