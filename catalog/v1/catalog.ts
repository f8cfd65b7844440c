import {z} from 'zod'
import type {Episode, Meetup, Voice} from './contract.ts'
import {
  documentIdOf,
  mapDocument,
  specs,
  type CatalogEntry,
  type CollectionSpec,
  type MappedDocument,
} from './document-mapping.ts'
import {COLLECTION_NAMES, type CollectionName, type Links} from './links.ts'
import {byCodePoint, firstIndexNotBefore} from './order.ts'
import type {MappingContext} from './person-ref.ts'
import {
  mapPodcastSettings,
  PODCAST_SETTINGS_ID,
  SETTINGS_DELETED,
  SETTINGS_MISSING,
  type MappedSettings,
} from './podcast-settings.ts'

import {cleanStrings} from './xml-text.ts'

export type {CatalogEntry} from './document-mapping.ts'

/** What a problem's document is: one of a collection's, or the podcast settings (the feed's channel). */
export const PROBLEM_SOURCES = [...COLLECTION_NAMES, 'settings'] as const
export const PROBLEM_SEVERITIES = ['rejected', 'kept', 'warning'] as const

const RELEASE_HELD = 'release held:'
/**
 * The message of a refused edit that holds the release of an episode not yet released (scheduled.ts
 * holds it). Every later build says it again while the document stays refused: the problems are
 * the only trace of the hold that a full read and a saved snapshot keep.
 */
export const releaseHeldNote = (releaseAt: string) =>
  `${RELEASE_HELD} this edit was refused, so the last valid version (due ${releaseAt}) is not released either; a valid version is released at its own publishedAt`
function releaseHeldNotes(problems: readonly DocumentProblem[] | undefined): Map<string, string> {
  const notes = new Map<string, string>()
  for (const {collection, documentId, messages} of problems ?? []) {
    const note = collection === 'episodes' ? messages.find((message) => message.startsWith(RELEASE_HELD)) : undefined
    if (note !== undefined) notes.set(documentId, note)
  }
  return notes
}

/** A document the API does not serve as it is, and why. */
interface DocumentProblem {
  documentId: string
  collection: (typeof PROBLEM_SOURCES)[number]
  /** `rejected`: not served; `kept`: its last valid version is still served; `warning`: served, with something left out. */
  severity: (typeof PROBLEM_SEVERITIES)[number]
  messages: string[]
}

export interface Catalog {
  readonly episodes: readonly CatalogEntry<Episode>[]
  readonly meetups: readonly CatalogEntry<Meetup>[]
  readonly voices: readonly CatalogEntry<Voice>[]
  readonly problems: readonly DocumentProblem[]
  /**
   * The podcast settings singleton as the feed uses it; null when there is no such document and no
   * good channel was served before it went (a deleted one's last good channel is held, as `kept`).
   */
  readonly podcast: MappedSettings | null
  /** Episodes held back until their release time (scheduled.ts), latest first; served nowhere. */
  readonly scheduled?: readonly CatalogEntry<Episode>[]
}

export interface CatalogSettings {
  links: Links
  feedUrl: string
}

/** One published document's new state, from a per-document query: `row` null means gone or unpublished. */
export interface DocumentUpdate {
  collection: CollectionName
  documentId: string
  row: unknown
}

/** The top-level shape of CATALOG_QUERY; anything else means the source is broken, not a document. */
const catalogResultSchema = z.object({
  episodes: z.array(z.unknown()),
  meetups: z.array(z.unknown()),
  voices: z.array(z.unknown()),
  podcast: z.unknown().optional(),
})

/**
 * Turns the result of CATALOG_QUERY into the served catalog. A document that breaks the contract
 * is reported and, if `previous` served a valid version of it, that version stays; it never takes
 * the rest of the catalog down with it. Throws only when the result as a whole has the wrong shape.
 */
export function mapCatalog(result: unknown, settings: CatalogSettings, previous?: Catalog): Catalog {
  const rows = catalogResultSchema.parse(result)
  const problems: DocumentProblem[] = []
  // Voices first: episodes and meetups may only link to voices that are served.
  const voices = mapCollection(
    {collection: 'voices', spec: specs.voices, context: {...settings, servedVoices: new Set()}, problems},
    rows.voices,
    previous?.voices,
  )
  const context = {...settings, servedVoices: new Set(voices.map((voice) => voice.value.slug))}
  return {
    episodes: mapCollection(
      {
        collection: 'episodes',
        spec: specs.episodes,
        context,
        problems,
        heldNotes: releaseHeldNotes(previous?.problems),
      },
      rows.episodes,
      previous?.episodes,
    ),
    meetups: mapCollection(
      {collection: 'meetups', spec: specs.meetups, context, problems},
      rows.meetups,
      previous?.meetups,
    ),
    voices,
    problems,
    podcast: podcastSettingsOf(rows.podcast, settings, previous?.podcast, problems),
  }
}

/**
 * The settings singleton's row (null when there is none) as the catalog holds it. Invalid settings
 * are refused like any document: the last valid channel stays (`kept`), so the feed keeps serving
 * it; with none, the refusal itself is held, and the feed says why it is unavailable. A deleted or
 * unpublished document keeps the last valid channel too: a feed that vanished would tell every
 * directory the podcast is gone.
 */
function podcastSettingsOf(
  row: unknown,
  settings: CatalogSettings,
  previous: MappedSettings | null | undefined,
  problems: DocumentProblem[],
): MappedSettings | null {
  if (row === null || row === undefined) {
    const held = previous?.ok ? previous : undefined
    problems.push({
      documentId: PODCAST_SETTINGS_ID,
      collection: 'settings',
      severity: held ? 'kept' : 'rejected',
      messages: [held ? SETTINGS_DELETED : SETTINGS_MISSING],
    })
    return held ?? null
  }
  const mapped = mapPodcastSettings(cleanStrings(row).value, settings.links)
  if (mapped.ok && mapped.warnings.length > 0)
    problems.push({
      documentId: documentIdOf(row),
      collection: 'settings',
      severity: 'warning',
      messages: mapped.warnings,
    })
  if (mapped.ok) return mapped
  const kept = previous?.ok ? previous : undefined
  problems.push({
    documentId: documentIdOf(row),
    collection: 'settings',
    severity: kept ? 'kept' : 'rejected',
    messages: mapped.messages,
  })
  return kept ?? mapped
}

/**
 * Applies per-document updates without touching anything else: unchanged entries stay the same
 * objects, so the snapshot reuses their bytes. Voices are applied first, since episodes and meetups
 * may only link to served voices; a caller updating a voice also passes the documents that
 * reference it (their guests and speakers show its slug).
 */
export function patchCatalog(catalog: Catalog, updates: readonly DocumentUpdate[], settings: CatalogSettings): Catalog {
  const touched = new Set(updates.map((update) => update.documentId))
  const problems = catalog.problems.filter((problem) => !touched.has(problem.documentId))
  let voices = catalog.voices
  const voiceContext = {...settings, servedVoices: new Set<string>()}
  for (const update of updates)
    if (update.collection === 'voices')
      voices = patchCollection(
        {collection: 'voices', spec: specs.voices, context: voiceContext, problems},
        voices,
        update,
      )
  const context = {
    ...settings,
    servedVoices:
      voices === catalog.voices ? servedVoicesOf(catalog) : new Set(voices.map((voice) => voice.value.slug)),
  }
  let {episodes, meetups} = catalog
  const heldNotes = releaseHeldNotes(catalog.problems)
  for (const update of updates) {
    if (update.collection === 'episodes')
      episodes = patchCollection(
        {collection: 'episodes', spec: specs.episodes, context, problems, heldNotes},
        episodes,
        update,
      )
    else if (update.collection === 'meetups')
      meetups = patchCollection({collection: 'meetups', spec: specs.meetups, context, problems}, meetups, update)
  }
  return {episodes, meetups, voices, problems, podcast: catalog.podcast}
}

// The served voices' slugs, once per voices array: in a large catalog an episode edit would
// otherwise spend most of its time making this set again.
const servedVoiceSets = new WeakMap<readonly CatalogEntry<Voice>[], Set<string>>()
function servedVoicesOf(catalog: Catalog): Set<string> {
  let slugs = servedVoiceSets.get(catalog.voices)
  if (!slugs) servedVoiceSets.set(catalog.voices, (slugs = new Set(catalog.voices.map((voice) => voice.value.slug))))
  return slugs
}

/**
 * The one document policy, for full and per-document builds alike, so a replica that applied a
 * webhook and one that re-read everything serve the same thing:
 * - a valid document is served, with a `warning` for anything it left out;
 * - a slug belongs to the document that already holds it (the established holder); a document
 *   that asks for a slug held by another is refused like an invalid one;
 * - a refused document keeps its last valid version (`kept`) while that version's slug is free,
 *   and is `rejected` (not served) otherwise; one whose release was held for a refused edit
 *   (`heldNote`, scheduled.ts) still says so.
 * `holderOf` names the document serving a slug so far.
 */
function admit<Item extends {slug: string}>(
  candidate: {
    collection: CollectionName
    documentId: string
    mapped: MappedDocument<Item>
    lastValid: CatalogEntry<Item> | undefined
    heldNote?: string | undefined
  },
  holderOf: (slug: string) => string | undefined,
  problems: DocumentProblem[],
): CatalogEntry<Item> | undefined {
  const {collection, documentId, mapped, lastValid, heldNote} = candidate
  const isFree = (slug: string) => (holderOf(slug) ?? documentId) === documentId
  const messages = !mapped.ok
    ? mapped.messages
    : isFree(mapped.entry.value.slug)
      ? []
      : [duplicateSlug(mapped.entry.value.slug, collection)]
  if (mapped.ok && messages.length === 0) {
    if (mapped.warnings.length > 0)
      problems.push({documentId, collection, severity: 'warning', messages: mapped.warnings})
    return mapped.entry
  }
  const kept = lastValid && isFree(lastValid.value.slug) ? lastValid : undefined
  const said = !kept && heldNote !== undefined ? [...messages, heldNote] : messages
  problems.push({documentId, collection, severity: kept ? 'kept' : 'rejected', messages: said})
  return kept
}

/** One collection being mapped: which, by what spec, in what context, and where its problems go. */
interface CollectionWork<Row, Item> {
  collection: CollectionName
  spec: CollectionSpec<Row, Item>
  context: MappingContext
  problems: DocumentProblem[]
  /** Episodes whose release a refused edit holds, by document id: the note their problem carries. */
  heldNotes?: ReadonlyMap<string, string>
}

function mapCollection<Row, Item extends {slug: string}>(
  {collection, spec, context, problems, heldNotes}: CollectionWork<Row, Item>,
  input: unknown[],
  previous: readonly CatalogEntry<Item>[] | undefined,
): CatalogEntry<Item>[] {
  const lastValid = new Map(previous?.map((entry) => [entry.documentId, entry]))
  // Two documents with the same sort key are ordered by id, so every build orders them alike.
  const byOrder = (a: CatalogEntry<Item>, b: CatalogEntry<Item>) =>
    spec.order.compare(spec.order.key(a.value), spec.order.key(b.value)) || byCodePoint(a.documentId, b.documentId)
  const documents = input.map((raw) => {
    const documentId = documentIdOf(raw)
    return {documentId, mapped: mapDocument(spec, {raw, documentId}, context)}
  })
  type Document = (typeof documents)[number]
  const isValid = (document: Document): document is Document & {mapped: Extract<MappedDocument<Item>, {ok: true}>} =>
    document.mapped.ok
  const valid = documents.filter(isValid)
  const established = (document: (typeof valid)[number]) =>
    lastValid.get(document.documentId)?.value.slug === document.mapped.entry.value.slug
  const refused = documents.filter((document) => !document.mapped.ok)
  const keepsAVersion = (document: Document) => lastValid.has(document.documentId)
  // Established holders claim their slugs first: valid documents whose slug did not change, and
  // refused ones whose last valid version is served (a per-document build sees that version as
  // the holder too). Then the rest in list order; refused documents with no version get nothing.
  const claimOrder = [
    ...valid.filter(established),
    ...refused.filter(keepsAVersion),
    ...valid.filter((document) => !established(document)).sort((a, b) => byOrder(a.mapped.entry, b.mapped.entry)),
    ...refused.filter((document) => !keepsAVersion(document)),
  ]
  const holders = new Map<string, string>()
  const entries: CatalogEntry<Item>[] = []
  for (const {documentId, mapped} of claimOrder) {
    const entry = admit(
      {collection, documentId, mapped, lastValid: lastValid.get(documentId), heldNote: heldNotes?.get(documentId)},
      (slug) => holders.get(slug),
      problems,
    )
    if (!entry) continue
    holders.set(entry.value.slug, documentId)
    entries.push(entry)
  }
  return entries.sort(byOrder)
}

function patchCollection<Row, Item extends {slug: string}>(
  {collection, spec, context, problems, heldNotes}: CollectionWork<Row, Item>,
  entries: readonly CatalogEntry<Item>[],
  update: DocumentUpdate,
): readonly CatalogEntry<Item>[] {
  const index = entries.findIndex((entry) => entry.documentId === update.documentId)
  const existing = entries[index]
  const without = index === -1 ? entries : entries.toSpliced(index, 1)
  if (update.row === null || update.row === undefined) return without

  const mapped = mapDocument(spec, {raw: update.row, documentId: update.documentId}, context)
  // Slugs are unique among served entries: the one this document already served is held by no other.
  const holderOf = (slug: string) =>
    slug === existing?.value.slug ? undefined : without.find((entry) => entry.value.slug === slug)?.documentId
  const {documentId} = update
  const entry = admit(
    {collection, documentId, mapped, lastValid: existing, heldNote: heldNotes?.get(documentId)},
    holderOf,
    problems,
  )
  if (!entry) return without
  // A change that leaves the item as it was (a webhook delivered again, a file edit that the
  // webhook's build already applied) keeps the same entries, so the snapshot reuses the whole list.
  if (entry === existing || isSameEntry(entry, existing)) return entries
  const key = spec.order.key(entry.value)
  const position = firstIndexNotBefore(
    without,
    (other) =>
      (spec.order.compare(spec.order.key(other.value), key) || byCodePoint(other.documentId, entry.documentId)) <= 0,
  )
  return without.toSpliced(position, 0, entry)
}

function isSameEntry<Item>(entry: CatalogEntry<Item>, existing: CatalogEntry<Item> | undefined): boolean {
  // Values are zod's output of JSON, keys in the mapper's order; the Studio imports this module, so no node:util.
  return existing?.updatedAt === entry.updatedAt && JSON.stringify(existing.value) === JSON.stringify(entry.value)
}

function duplicateSlug(slug: string, collection: CollectionName): string {
  return `slug: "${slug}" is already used by another document in ${collection}`
}
