import {z} from 'zod'
import {slugSchema, type Episode, type Meetup, type PersonRef, type Voice} from '../../catalog/v1/contract.ts'
import {decodeCursor, encodeCursor} from '../api/v1/cursor.ts'
import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import type {CatalogEntry} from '../../catalog/v1/catalog.ts'
import {episodeOrder, meetupOrder, voiceOrder, type ListOrder} from '../../catalog/v1/order.ts'
import {searchCatalog} from '../snapshot/search.ts'
import {defineTool, notFound, ToolFailure, type ToolDefinition} from './tool-definition.ts'
import {indexBeingBuilt} from '../api/v1/search.ts'
import {cuesOf, transcriptJson} from '../../catalog/v1/transcript.ts'

// The MCP tools: read-only, with zod input and output schemas. Every call reads the current
// snapshot once, so tools and the HTTP API always answer from the same content. The definitions
// are data, so the discovery documents list exactly what is registered.

const MAX_LIST_LIMIT = 100

const tagInput = z.string().max(64).optional().describe('A tag from list_tags, such as "react".')
const voiceListInput = z.object({
  tag: tagInput,
  // Ten summaries are about 6 KB: a page that fits comfortably in a model's context.
  limit: z.int().min(1).max(MAX_LIST_LIMIT).default(10),
  cursor: z.string().max(1024).optional().describe('next_cursor of the previous page.'),
})
const listInput = voiceListInput.extend({
  speaker: slugSchema.optional().describe('A voice slug.'),
})

// Lists answer with summaries sized for a model's context; get_ tools give the whole record.
const episodeSummary = z.object({
  slug: z.string(),
  title: z.string(),
  published_date: z.string(),
  episode_number: z.number().nullable(),
  tags: z.array(z.string()),
  guests: z.array(z.string()),
  url: z.string(),
})
const meetupSummary = episodeSummary.omit({episode_number: true, guests: true}).extend({speakers: z.array(z.string())})
const voiceSummary = z.object({
  slug: z.string(),
  name: z.string(),
  role: z.string(),
  tech_stack: z.array(z.string()),
  url: z.string(),
})

const pageOf = <Item extends z.ZodType>(item: Item) =>
  z.object({
    items: z.array(item),
    total: z.number(),
    next_cursor: z.string().nullable(),
  })

const slugInput = z.object({slug: z.string().max(256).describe('The item slug, as in list results or api_url.')})

const searchHitSchema = z.object({
  collection: z.enum(COLLECTION_NAMES),
  slug: z.string(),
  title: z.string().describe('The title, or the name for a voice.'),
  url: z.string().describe('Canonical page: cite this.'),
  api_url: z.string(),
  score: z.number().describe('Relevance; results come highest first.'),
  snippet: z.string().describe('Where it matches.'),
  cue: z
    .object({start_seconds: z.number(), end_seconds: z.number(), speaker: z.string().nullable(), text: z.string()})
    .nullable()
    .describe('Where a transcript matches.'),
})

/** One page of a list tool's answer: the entries `keep` admits, in `order`, after the input's cursor. */
interface ListPage<Item, Summary> {
  entries: readonly CatalogEntry<Item>[]
  order: ListOrder<Item>
  keep: (item: Item) => boolean
  summarise: (item: Item) => Summary
}

function page<Item, Summary>(
  input: z.infer<typeof voiceListInput>,
  {entries, order, keep, summarise}: ListPage<Item, Summary>,
) {
  const matching = entries.map((entry) => entry.value).filter(keep)
  let start = 0
  if (input.cursor) {
    const decoded = decodeCursor(input.cursor)
    if (!decoded.ok) return new ToolFailure(`${decoded.reason}. Omit cursor to start from the first page.`)
    const after = decoded.key
    start = matching.findIndex((item) => order.compare(order.key(item), after) > 0)
    if (start === -1) start = matching.length
  }
  const items = matching.slice(start, start + input.limit)
  const last = items.at(-1)
  const more = start + input.limit < matching.length
  return {
    items: items.map(summarise),
    total: matching.length,
    next_cursor: more && last !== undefined ? encodeCursor(order.key(last)) : null,
  }
}

/** Tags are lowercase with dashes: "Machine Learning" and "machine_learning" mean "machine-learning". */
const normalTag = (tag: string) =>
  tag
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
const hasTag = (tag: string | undefined, tags: readonly string[]) => tag === undefined || tags.includes(normalTag(tag))
const slugsOf = (people: readonly PersonRef[]) => people.map((person) => person.slug)
const summariseEpisode = (episode: Episode): z.infer<typeof episodeSummary> => ({
  slug: episode.slug,
  title: episode.title,
  published_date: episode.published_date,
  episode_number: episode.episode_number,
  tags: episode.tags,
  guests: slugsOf(episode.guests),
  url: episode.url,
})
const summariseMeetup = (meetup: Meetup): z.infer<typeof meetupSummary> => ({
  slug: meetup.slug,
  title: meetup.title,
  published_date: meetup.published_date,
  tags: meetup.tags,
  speakers: slugsOf(meetup.speakers),
  url: meetup.url,
})
const summariseVoice = (voice: Voice): z.infer<typeof voiceSummary> => ({
  slug: voice.slug,
  name: voice.name,
  role: voice.role,
  tech_stack: voice.tech_stack,
  url: voice.url,
})
const hasPerson = (slug: string | undefined, people: readonly PersonRef[]) =>
  slug === undefined || people.some((person) => person.slug === slug)

function find<Item extends {slug: string}>(
  collection: CollectionName,
  entries: readonly CatalogEntry<Item>[],
  slug: string,
): Item | ToolFailure {
  return entries.find((entry) => entry.value.slug === slug)?.value ?? notFound(collection, slug, entries)
}

export const catalogTools: readonly ToolDefinition[] = [
  defineTool(
    'list_episodes',
    {
      title: 'List episodes',
      description: 'Episodes, newest first, as summaries (guests are voice slugs); get_episode has the whole record.',
      inputSchema: listInput,
      outputSchema: pageOf(episodeSummary),
    },
    (input, snapshot) =>
      page(input, {
        entries: snapshot.catalog.episodes,
        order: episodeOrder,
        keep: (episode: Episode) => hasTag(input.tag, episode.tags) && hasPerson(input.speaker, episode.guests),
        summarise: summariseEpisode,
      }),
  ),
  defineTool(
    'get_episode',
    {
      title: 'Get an episode',
      description:
        'One episode by slug, as the API serves it (Episode in /api/openapi.json), chapters (start_seconds, title) included.',
      inputSchema: slugInput,
    },
    (input, snapshot) => find('episodes', snapshot.catalog.episodes, input.slug),
  ),
  defineTool(
    'get_transcript',
    {
      title: "Get an episode's transcript",
      description:
        "What was said, a page of timed segments at a time, as the API's transcript.json (TranscriptDocument in /api/openapi.json). from_seconds starts where a search_catalog cue starts.",
      inputSchema: z.object({
        slug: slugInput.shape.slug,
        from_seconds: z.number().min(0).optional(),
        // A hundred segments are about 10 KB: a page that fits in a model's context.
        limit: z.int().min(1).max(500).default(100),
        cursor: z.string().max(32).optional().describe('next_cursor of the previous page.'),
      }),
    },
    (input, snapshot) => {
      const entry = snapshot.catalog.episodes.find((episode) => episode.value.slug === input.slug)
      if (!entry) return notFound('episodes', input.slug, snapshot.catalog.episodes)
      if (!entry.transcript)
        return new ToolFailure(
          `The episode "${input.slug}" holds no transcript (its transcript_revision is null); get_episode shows its external transcript link, if any.`,
        )
      const cues = cuesOf(entry.transcript)
      const from = input.cursor === undefined ? undefined : Number(input.cursor)
      if (from !== undefined && !(Number.isSafeInteger(from) && from >= 0 && from <= cues.length))
        return new ToolFailure(
          `"${input.cursor}" is not a cursor of this transcript. Omit cursor to start from the first page.`,
        )
      const start = from ?? firstCueEndingAfter(cues, input.from_seconds ?? 0)
      const end = Math.min(cues.length, start + input.limit)
      return {
        ...transcriptJson(cues.slice(start, end)),
        total: cues.length,
        next_cursor: end < cues.length ? String(end) : null,
      }
    },
  ),
  defineTool(
    'list_meetups',
    {
      title: 'List meetup talks',
      description: 'Internal meetup talks, newest first, as summaries; get_meetup has the whole record.',
      inputSchema: listInput,
      outputSchema: pageOf(meetupSummary),
    },
    (input, snapshot) =>
      page(input, {
        entries: snapshot.catalog.meetups,
        order: meetupOrder,
        keep: (meetup: Meetup) => hasTag(input.tag, meetup.tags) && hasPerson(input.speaker, meetup.speakers),
        summarise: summariseMeetup,
      }),
  ),
  defineTool(
    'get_meetup',
    {
      title: 'Get a meetup talk',
      description: 'One talk by slug, as the API serves it (Meetup in /api/openapi.json).',
      inputSchema: slugInput,
    },
    (input, snapshot) => find('meetups', snapshot.catalog.meetups, input.slug),
  ),
  defineTool(
    'list_voices',
    {
      title: 'List speakers',
      description: 'Speakers in Hebrew name order, as summaries; `tag` matches their tech stack.',
      inputSchema: voiceListInput,
      outputSchema: pageOf(voiceSummary),
    },
    (input, snapshot) =>
      page(input, {
        entries: snapshot.catalog.voices,
        order: voiceOrder,
        keep: (voice) => hasTag(input.tag, voice.tech_stack.map(normalTag)),
        summarise: summariseVoice,
      }),
  ),
  defineTool(
    'get_voice',
    {
      title: 'Get a speaker',
      description:
        'One speaker by slug, as the API serves it (Voice in /api/openapi.json), plus the episodes and talks they appear in.',
      inputSchema: slugInput,
    },
    (input, snapshot) => {
      const voice = find('voices', snapshot.catalog.voices, input.slug)
      if (voice instanceof ToolFailure) return voice
      const {episodes, meetups} = snapshot.catalog
      const appearances = [
        ...episodes
          .filter(({value}) => hasPerson(voice.slug, value.guests))
          .map(({value}) => ({collection: 'episodes' as const, ...pick(value)})),
        ...meetups
          .filter(({value}) => hasPerson(voice.slug, value.speakers))
          .map(({value}) => ({collection: 'meetups' as const, ...pick(value)})),
      ]
      return {...voice, appearances}
    },
  ),
  defineTool(
    'search_catalog',
    {
      title: 'Search the catalog',
      description:
        'Ranked search over titles, descriptions, takeaways, FAQ, tags, speakers and transcripts, in Hebrew (niqqud, final letters and prefix letters folded) or English.',
      inputSchema: z.object({
        query: z.string().trim().min(1).max(200),
        collections: z.array(z.enum(COLLECTION_NAMES)).min(1).optional().describe('All three by default.'),
        limit: z.int().min(1).max(50).default(10),
      }),
      outputSchema: z.object({results: z.array(searchHitSchema), total: z.number()}),
    },
    (input, snapshot) => {
      const answer = searchCatalog(snapshot, input.query, input.collections ?? COLLECTION_NAMES, input.limit)
      if (!answer.ready) return new ToolFailure(indexBeingBuilt(answer.retryAfterSeconds))
      return {results: answer.hits, total: answer.total}
    },
  ),
  defineTool(
    'list_tags',
    {
      title: 'List tags',
      description:
        "The values `tag` filters take: topic tags and speakers' technologies, with counts, most used first.",
      inputSchema: z.object({}),
      outputSchema: z.object({
        tags: z.array(z.object({tag: z.string(), episodes: z.number(), meetups: z.number(), voices: z.number()})),
      }),
    },
    (_input, snapshot) => {
      const counts = new Map<string, {tag: string; episodes: number; meetups: number; voices: number}>()
      const count = (collection: CollectionName, tags: readonly string[]) => {
        for (const tag of tags) {
          let entry = counts.get(tag)
          if (!entry) counts.set(tag, (entry = {tag, episodes: 0, meetups: 0, voices: 0}))
          entry[collection] += 1
        }
      }
      for (const {value} of snapshot.catalog.episodes) count('episodes', value.tags)
      for (const {value} of snapshot.catalog.meetups) count('meetups', value.tags)
      for (const {value} of snapshot.catalog.voices) count('voices', value.tech_stack.map(normalTag))
      const total = (entry: {episodes: number; meetups: number; voices: number}) =>
        entry.episodes + entry.meetups + entry.voices
      return {tags: [...counts.values()].sort((a, b) => total(b) - total(a) || (a.tag < b.tag ? -1 : 1))}
    },
  ),
]

/** Where a page from `seconds` starts: past the last cue's end nothing more was said, an empty page. */
function firstCueEndingAfter(cues: readonly {end: number}[], seconds: number): number {
  const at = cues.findIndex((cue) => cue.end > seconds)
  return at === -1 ? cues.length : at
}

function pick(item: {slug: string; title: string; published_date: string; url: string}) {
  return {slug: item.slug, title: item.title, published_date: item.published_date, url: item.url}
}
