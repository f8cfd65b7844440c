import {createHash} from 'node:crypto'
import {mkdir, open, readdir, rename, rm, type FileHandle} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {PROBLEM_SEVERITIES, PROBLEM_SOURCES, type Catalog, type CatalogEntry} from '../../catalog/v1/catalog.ts'
import {episodeSchema, type Episode, type Meetup, type Voice} from '../../catalog/v1/contract.ts'
import {transcriptRevision} from '../../catalog/v1/transcript.ts'
import {COLLECTION_NAMES, type CollectionName} from '../../catalog/v1/links.ts'
import {ChangeHistory} from './change-history.ts'
import {bufferOver} from './owned-bytes.ts'
import {strongEtag} from './representation.ts'
import type {KnownItem, KnownItems, Snapshot} from './snapshot.ts'
import {mappedSettingsSchema} from '../../catalog/v1/podcast-settings.ts'
import type {Config} from '../config.ts'
import {codeDigest} from '../version.ts'

interface SavedCatalog {
  catalog: Catalog
  items: KnownItems
  savedAt: Date
  /** The source's fingerprint taken before the read the saved snapshot was built from. */
  fingerprint: string
  /**
   * Saved by other code under the same settings: its bytes may not be what this code makes, so it
   * is served only when the source cannot be read at start, never confirmed by the fingerprint.
   */
  otherCode: boolean
  /** Items whose bytes did not match their checksum: left out of `catalog` and `items`, never served. */
  refused: RefusedItem[]
  /** The change feed's history as saved; undefined when it could not be read (tokens before the restart are then unknown). */
  history: ChangeHistory | undefined
}

/** A saved item left out because its bytes were damaged. */
interface RefusedItem {
  collection: CollectionName
  documentId: string
}

/**
 * The last snapshot served, on disk, with the source's fingerprint taken before the full read it
 * was built from (or `UNCONFIRMED_FINGERPRINT` after a per-document build). A restart serves it at
 * once, before the source is asked anything, and then reads the source only if its fingerprint moved. One file, replaced atomically: a header line (its own
 * digest, then fingerprint, settings, the items' digest, one record per item), then each item's
 * served bytes on a line.
 */
export interface SnapshotFile {
  /**
   * The saved catalog if one was saved under these settings (by this code or, marked `otherCode`,
   * by another); undefined if there is none. Rejects if the file is damaged: a header that does not
   * match its checksum, a cut or extra line, or more than half of the items damaged refuse the whole
   * file; fewer damaged items are left out (`refused`). Removes temporary files a killed save left behind first.
   */
  load(): Promise<SavedCatalog | undefined>
  save(snapshot: Snapshot, fingerprint: string): Promise<void>
}

const FORMAT = 6
/**
 * The fingerprint a snapshot from a per-document build is saved with: no source's fingerprint equals
 * it, so the start that restores it serves it and still reads the source in full behind it.
 */
export const UNCONFIRMED_FINGERPRINT = ''
const FILE_NAME = 'snapshot.ndjson'
const TEMPORARY = /^snapshot\.ndjson\..+\.tmp$/
const WRITE_BLOCK_BYTES = 1 << 20
const READ_BLOCK_BYTES = 1 << 20
const NEWLINE = Buffer.from('\n')

// document id, updatedAt, ETag, Last-Modified ms, and for an episode that holds a transcript, the
// transcript's revision (transcript.ts's digest, which the item names too): its bytes are the line
// after the item's. The revision is made once, when the transcript is mapped, not at every save.
/** What an entry that holds a transcript names it by: an episode's `transcript_revision`. */
const revisionSchema = z.object({transcript_revision: z.string()})
const recordSchema = z.tuple([z.string(), z.string(), z.string(), z.number()], z.string())
const headerSchema = z.object({
  format: z.literal(FORMAT),
  key: z.string(),
  /** The settings' part of `key`: a file from other code under the same settings can still be a fallback. */
  settingsKey: z.string(),
  fingerprint: z.string(),
  /** SHA-256 of every byte after the header line: the items' checksum. */
  itemsDigest: z.string(),
  savedAt: z.number(),
  problems: z.array(
    z.object({
      documentId: z.string(),
      collection: z.enum(PROBLEM_SOURCES),
      severity: z.enum(PROBLEM_SEVERITIES),
      messages: z.array(z.string()),
    }),
  ),
  items: z.object({episodes: z.array(recordSchema), meetups: z.array(recordSchema), voices: z.array(recordSchema)}),
  podcast: mappedSettingsSchema.nullable(),
  /** Episodes held back until their release time: never served yet, so kept as values, not bytes. */
  scheduled: z.array(
    z.object({documentId: z.string(), updatedAt: z.string(), value: episodeSchema, transcript: z.string().optional()}),
  ),
  /** The change feed's history up to this snapshot (change-history.ts), so its tokens outlive a restart. */
  history: z.unknown().optional(),
})

const digestOf = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('base64url')

/**
 * What the served bytes depend on besides the content and the code (the saved file's key holds
 * `codeDigest()`, which covers the package version through the lock file): a snapshot saved under
 * other settings is not reused.
 */
export function bytesDependOn(config: Config) {
  return {
    publicBaseUrl: config.publicBaseUrl,
    siteUrl: config.siteUrl,
    feedUrl: config.feedUrl,
    images: config.images,
    content: config.content,
  }
}

/**
 * `settings` is everything the served bytes depend on besides the content and the code (base URLs,
 * image settings: `bytesDependOn`); `code` is the digest of the code that makes them (`codeDigest`).
 */
export function openSnapshotFile(directory: string, settings: unknown, code: string = codeDigest()): SnapshotFile {
  const key = digestOf(JSON.stringify({FORMAT, settings, code}))
  const settingsKey = digestOf(JSON.stringify({FORMAT, settings}))
  const path = join(directory, FILE_NAME)
  return {
    async load() {
      await removeLeftovers(directory)
      const file = await readHeaderApart(path)
      if (!file) return undefined
      // The first line is the header's digest and the header: `<digest> <json>`.
      const {line, bytes} = file
      const space = line.indexOf(0x20)
      const headerBytes = line.subarray(space + 1)
      if (space === -1 || line.toString('utf8', 0, space) !== digestOf(headerBytes)) {
        // A file of an earlier format begins with its JSON header: not damaged, only not this code's.
        if (line[0] === 0x7b) return undefined
        throw new Error(`${path}: the header does not match its checksum`)
      }
      const parsed = headerSchema.safeParse(JSON.parse(headerBytes.toString('utf8')))
      // Saved under other settings (other links, other images): not reused, and not damaged either.
      if (!parsed.success || (parsed.data.key !== key && parsed.data.settingsKey !== settingsKey)) return undefined
      const header = parsed.data
      // One digest over all items, one pass over contiguous bytes (a fraction of a digest per
      // item). Only when it fails is each item checked against its ETag, to leave out the damaged ones.
      const intact = digestOf(bytes) === header.itemsDigest
      const items = new Map<CatalogEntry<unknown>, KnownItem>()
      const refused: RefusedItem[] = []
      let offset = 0
      const entries = <Item>(collection: CollectionName): CatalogEntry<Item>[] =>
        header.items[collection].flatMap(([documentId, updatedAt, etag, lastModified, revision]) => {
          const line = () => {
            const end = bytes.indexOf(0x0a, offset)
            if (end === -1) throw new Error(`${path} ends before its last item: it was cut short`)
            // Items are views into the bytes after the header: the catalog is held once, as the server holds it.
            const viewed = bytes.subarray(offset, end)
            offset = end + 1
            return viewed
          }
          const body = line()
          const transcript = revision === undefined ? undefined : line()
          const damaged =
            !intact &&
            (strongEtag(body) !== etag || (transcript !== undefined && transcriptRevision(transcript) !== revision))
          if (damaged) {
            refused.push({collection, documentId})
            return []
          }
          const entry: CatalogEntry<Item> = Object.freeze({
            value: savedItem<Item>(body),
            updatedAt,
            documentId,
            ...(transcript ? {transcript} : {}),
          })
          items.set(entry, {body, etag, lastModified: new Date(lastModified)})
          return [entry]
        })
      const catalog: Catalog = {
        episodes: entries<Episode>('episodes'),
        meetups: entries<Meetup>('meetups'),
        voices: entries<Voice>('voices'),
        problems: header.problems,
        podcast: header.podcast,
        scheduled: header.scheduled.map(({transcript, ...entry}) =>
          Object.freeze({...entry, ...(transcript === undefined ? {} : {transcript: Buffer.from(transcript, 'utf8')})}),
        ),
      }
      if (offset !== bytes.length) throw new Error(`${path} holds more lines than its header lists`)
      // Most of the file damaged says the disk, not one item: nothing of it is trusted.
      if (refused.length * 2 > items.size + refused.length)
        throw new Error(
          `${path}: the items do not match their checksum (${refused.length} of ${items.size + refused.length})`,
        )
      return {
        catalog: refused.length === 0 ? catalog : withRefused(catalog, refused),
        items,
        savedAt: new Date(header.savedAt),
        fingerprint: header.fingerprint,
        otherCode: header.key !== key,
        refused,
        history: ChangeHistory.restored(header.history),
      }
    },
    async save(snapshot, fingerprint) {
      const record = (collection: CollectionName) =>
        snapshot.catalog[collection].map((entry) => {
          const item = snapshot.item(collection, entry.value.slug)
          if (!item) throw new Error(`${collection}/${entry.value.slug} is in the catalog but not served`)
          const record = [entry.documentId, entry.updatedAt, item.etag, item.lastModified.getTime()]
          if (!entry.transcript) return {record, bodies: [item.body]}
          const {transcript_revision: revision} = revisionSchema.parse(entry.value)
          return {record: [...record, revision], bodies: [item.body, bufferOver(entry.transcript)]}
        })
      const records = Object.fromEntries(COLLECTION_NAMES.map((collection) => [collection, record(collection)]))
      const bodies = COLLECTION_NAMES.flatMap((collection) =>
        (records[collection] ?? []).flatMap((item) => item.bodies),
      )
      const items = createHash('sha256')
      for (const body of bodies) items.update(body).update(NEWLINE)
      const header = JSON.stringify({
        format: FORMAT,
        key,
        settingsKey,
        fingerprint,
        itemsDigest: items.digest('base64url'),
        savedAt: snapshot.builtAt.getTime(),
        problems: snapshot.catalog.problems,
        podcast: snapshot.catalog.podcast,
        scheduled: (snapshot.catalog.scheduled ?? []).map(({transcript, ...entry}) => ({
          ...entry,
          ...(transcript ? {transcript: bufferOver(transcript).toString('utf8')} : {}),
        })),
        history: snapshot.history,
        items: Object.fromEntries(
          COLLECTION_NAMES.map((collection) => [collection, (records[collection] ?? []).map((item) => item.record)]),
        ),
      })
      await mkdir(directory, {recursive: true})
      // Written beside and renamed over: a reader sees the old file or the new one, never half of one.
      const temporary = `${path}.${process.pid}.${Date.now()}.tmp`
      try {
        await writeLines(temporary, Buffer.from(`${digestOf(header)} ${header}\n`), bodies)
        await rename(temporary, path)
      } finally {
        await rm(temporary, {force: true})
      }
    },
  }
}

/**
 * The file's first line, and every byte after it in a buffer of its own: the items are views into
 * that buffer, which would otherwise keep the header (a record per item) alive as long as any of
 * them. Undefined when there is no file to read.
 */
async function readHeaderApart(path: string): Promise<{line: Buffer; bytes: Buffer} | undefined> {
  const handle = await open(path, 'r').catch(() => undefined)
  if (!handle) return undefined
  try {
    const {size} = await handle.stat()
    const head: Buffer[] = []
    for (let position = 0; position < size;) {
      const block = await readExactly(handle, Buffer.allocUnsafe(Math.min(READ_BLOCK_BYTES, size - position)), position)
      const newline = block.indexOf(0x0a)
      if (newline === -1) {
        head.push(block)
        position += block.length
        continue
      }
      head.push(block.subarray(0, newline))
      const bytes = Buffer.allocUnsafeSlow(size - position - newline - 1)
      const copied = block.copy(bytes, 0, newline + 1)
      await readExactly(handle, bytes.subarray(copied), position + block.length)
      return {line: Buffer.concat(head), bytes}
    }
    throw new Error(`${path} ends inside its header: it was cut short`)
  } finally {
    await handle.close()
  }
}

/** Fills `into` from `position` on; the file is never written in place (a save renames a new one over it). */
async function readExactly(handle: FileHandle, into: Buffer, position: number): Promise<Buffer> {
  for (let filled = 0; filled < into.length;) {
    const {bytesRead} = await handle.read(into, filled, into.length - filled, position + filled)
    if (bytesRead === 0) throw new Error('the saved snapshot ended while it was read')
    filled += bytesRead
  }
  return into
}

/** How many items to name when describing refused ones: the rest are counted. */
const REFUSED_NAMED = 10

/** Refused items in one line for the log and `/status`: the first few named, the rest counted. */
export function describeRefused(refused: readonly RefusedItem[]): string {
  const named = refused.slice(0, REFUSED_NAMED).map((item) => `${item.collection} ${item.documentId}`)
  const more = refused.length > REFUSED_NAMED ? ` and ${refused.length - REFUSED_NAMED} more` : ''
  return `${refused.length} saved item(s) do not match their checksum and are left out: ${named.join(', ')}${more}`
}

/** A refused item is a document problem of the catalog served from the file: `/status` lists it until the source is read. */
function withRefused(catalog: Catalog, refused: readonly RefusedItem[]): Catalog {
  const problems = refused.map(({collection, documentId}) => ({
    documentId,
    collection,
    severity: 'rejected' as const,
    messages: [
      "the saved snapshot's bytes of this item do not match their checksum; left out until the source is read",
    ],
  }))
  const left = new Set(refused.map((item) => item.documentId))
  return {...catalog, problems: [...catalog.problems.filter((problem) => !left.has(problem.documentId)), ...problems]}
}

/**
 * A save killed before its rename (`kill -9`, a crash) leaves its temporary file: each as large as
 * the snapshot. Removed at start, before this process saves anything; a directory that cannot be
 * listed is left to the save that follows, which reports it.
 */
async function removeLeftovers(directory: string): Promise<void> {
  const names = await readdir(directory).catch(() => [])
  await Promise.all(
    names
      .filter((name) => TEMPORARY.test(name))
      .map((name) => rm(join(directory, name), {force: true}).catch(() => undefined)),
  )
}

/**
 * The header, then each body on a line. Bodies are copied into one reused block of a megabyte and
 * written a block at a time: not a system call per item, nor a fresh block (garbage as large as
 * the snapshot) each time.
 */
async function writeLines(path: string, header: Buffer, bodies: readonly Buffer[]): Promise<void> {
  const handle = await open(path, 'w')
  try {
    await writeAll(handle, header)
    const block = Buffer.allocUnsafe(WRITE_BLOCK_BYTES)
    let filled = 0
    for (const body of bodies) {
      if (filled + body.length + 1 > block.length) {
        await writeAll(handle, block.subarray(0, filled))
        filled = 0
      }
      if (body.length + 1 > block.length) {
        await writeAll(handle, Buffer.concat([body, NEWLINE]))
        continue
      }
      filled += body.copy(block, filled)
      filled += NEWLINE.copy(block, filled)
    }
    await writeAll(handle, block.subarray(0, filled))
  } finally {
    await handle.close()
  }
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  for (let written = 0; written < bytes.length;)
    written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten
}

/**
 * The item a saved body holds. Not validated again: the file is keyed by the code and settings that
 * wrote it, its bytes matched their checksum, and every item passed the contract's schema when built.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the type the file was written with
function savedItem<Item>(body: Buffer): Item {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- trusted as above, not parsed again
  const {data}: {data: Item} = JSON.parse(body.toString('utf8'))
  return data
}
