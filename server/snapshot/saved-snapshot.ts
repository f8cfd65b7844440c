import {createHash} from 'node:crypto'
import {mkdir, open, readFile, rename, rm, type FileHandle} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {PROBLEM_SEVERITIES, PROBLEM_SOURCES, type Catalog, type CatalogEntry} from '../api/v1/catalog.ts'
import type {Episode, Meetup, Voice} from '../api/v1/contract.ts'
import {COLLECTION_NAMES, type CollectionName} from '../api/v1/links.ts'
import type {KnownItem, KnownItems, Snapshot} from './snapshot.ts'
import {mappedSettingsSchema} from '../api/v1/podcast-settings.ts'

interface SavedCatalog {
  catalog: Catalog
  items: KnownItems
  savedAt: Date
}

/**
 * The last snapshot built by a full read, on disk, with the source's fingerprint taken before
 * that read. A restart whose source still gives the same fingerprint serves it at once instead of
 * reading, mapping and serialising the whole catalog again. One file, replaced atomically: a
 * header line (fingerprint, settings, one record per item), then each item's served bytes on a line.
 */
export interface SnapshotFile {
  /** The saved catalog if one was saved under these settings with this fingerprint; rejects if the file is damaged. */
  load(fingerprint: string): Promise<SavedCatalog | undefined>
  save(snapshot: Snapshot, fingerprint: string): Promise<void>
}

const FORMAT = 2
const FILE_NAME = 'snapshot.ndjson'
const WRITE_BLOCK_BYTES = 1 << 20
const NEWLINE = Buffer.from('\n')

const recordSchema = z.tuple([z.string(), z.string(), z.string(), z.number()]) // document id, updatedAt, ETag, Last-Modified ms
const headerSchema = z.object({
  format: z.literal(FORMAT),
  key: z.string(),
  fingerprint: z.string(),
  savedAt: z.number(),
  problems: z.array(z.object({documentId: z.string(), collection: z.enum(PROBLEM_SOURCES), severity: z.enum(PROBLEM_SEVERITIES), messages: z.array(z.string())})),
  items: z.object({episodes: z.array(recordSchema), meetups: z.array(recordSchema), voices: z.array(recordSchema)}),
  podcast: mappedSettingsSchema.nullable(),
})

/** `settings` is everything the served bytes depend on besides the content (server version, base URLs, image settings). */
export function openSnapshotFile(directory: string, settings: unknown): SnapshotFile {
  const key = createHash('sha256').update(JSON.stringify({FORMAT, settings})).digest('base64url')
  const path = join(directory, FILE_NAME)
  return {
    async load(fingerprint) {
      const bytes = await readFile(path).catch(() => undefined)
      if (!bytes) return undefined
      const headerEnd = bytes.indexOf(0x0a)
      const header = headerSchema.safeParse(JSON.parse(bytes.toString('utf8', 0, headerEnd)))
      if (!header.success || header.data.key !== key || header.data.fingerprint !== fingerprint) return undefined
      const items = new Map<CatalogEntry<unknown>, KnownItem>()
      let offset = headerEnd + 1
      const entries = <Item>(collection: CollectionName): CatalogEntry<Item>[] =>
        header.data.items[collection].map(([documentId, updatedAt, etag, lastModified]) => {
          const end = bytes.indexOf(0x0a, offset)
          if (end === -1) throw new Error(`${path} ends before its last item: it was cut short`)
          // Items are views into the file's bytes: the catalog is held once, as the server holds it.
          const body = bytes.subarray(offset, end)
          offset = end + 1
          const entry: CatalogEntry<Item> = Object.freeze({value: savedItem<Item>(body), updatedAt, documentId})
          items.set(entry, {body, etag, lastModified: new Date(lastModified)})
          return entry
        })
      const catalog: Catalog = {
        episodes: entries<Episode>('episodes'),
        meetups: entries<Meetup>('meetups'),
        voices: entries<Voice>('voices'),
        problems: header.data.problems,
        podcast: header.data.podcast,
      }
      if (offset !== bytes.length) throw new Error(`${path} holds more lines than its header lists`)
      return {catalog, items, savedAt: new Date(header.data.savedAt)}
    },
    async save(snapshot, fingerprint) {
      const record = (collection: CollectionName) =>
        snapshot.catalog[collection].map((entry) => {
          const item = snapshot.item(collection, entry.value.slug)
          if (!item) throw new Error(`${collection}/${entry.value.slug} is in the catalog but not served`)
          return {record: [entry.documentId, entry.updatedAt, item.etag, item.lastModified.getTime()], body: item.body}
        })
      const records = Object.fromEntries(COLLECTION_NAMES.map((collection) => [collection, record(collection)]))
      const header = {
        format: FORMAT,
        key,
        fingerprint,
        savedAt: snapshot.builtAt.getTime(),
        problems: snapshot.catalog.problems,
        podcast: snapshot.catalog.podcast,
        items: Object.fromEntries(COLLECTION_NAMES.map((collection) => [collection, (records[collection] ?? []).map((item) => item.record)])),
      }
      await mkdir(directory, {recursive: true})
      // Written beside and renamed over: a reader sees the old file or the new one, never half of one.
      const temporary = `${path}.${process.pid}.${Date.now()}.tmp`
      try {
        await writeLines(
          temporary,
          Buffer.from(`${JSON.stringify(header)}\n`),
          COLLECTION_NAMES.flatMap((collection) => (records[collection] ?? []).map((item) => item.body)),
        )
        await rename(temporary, path)
      } finally {
        await rm(temporary, {force: true})
      }
    },
  }
}

/**
 * The header, then each body on a line. Bodies are copied into one reused block of a megabyte and
 * written a block at a time: one write per item would be 100,000 system calls, and a fresh block
 * each time 100 MB of garbage.
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
  for (let written = 0; written < bytes.length;) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten
}

/**
 * The item a saved body holds. Not validated again: the file is keyed by the server version and
 * settings that wrote it, and every item in it passed the contract's schema when it was built.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the type the file was written with
function savedItem<Item>(body: Buffer): Item {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- trusted as above, not parsed again
  const {data}: {data: Item} = JSON.parse(body.toString('utf8'))
  return data
}
