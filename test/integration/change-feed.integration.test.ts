// Integration: the typed client's sync() keeps a mirror equal to the catalog. `npm start`'s process
// over a copy of the dataset with SNAPSHOT_DIR; a mirror built by client/'s sync() from `changes.json`
// (an initial sync, then deltas from each next_token, paged by 7, every page held to the strict
// contract on its way in); seeded random edits of the dataset file (titles, deletions, slug renames,
// new episodes, voice renames that change the episodes naming them, drafts, episodes scheduled
// ahead), a restart in the middle; after each batch the mirror deep-equals `all.json`, and no sync
// had to start over (a 410 the client would have absorbed).
import {readFile, rename, rm, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {z} from 'zod'
import {
  createCatalogClient,
  type CatalogClient,
  type CatalogMirror,
  type FetchFunction,
} from '../../client/src/index.ts'
import {changesEnvelope} from '../../server/api/v1/changes.ts'
import {copySampleDataset} from '../helpers/dataset-file.ts'
import {eventually} from '../../support/eventually.ts'
import {startMainProcess, type MainProcess} from '../helpers/main-process.ts'

const TYPES = {episodes: 'episode', meetups: 'meetup', voices: 'voice'} as const
const item = z.looseObject({slug: z.string()})
const changesSchema = z.object({
  data: z.object({
    changes: z.array(
      z.object({
        type: z.enum(['episode', 'meetup', 'voice']),
        slug: z.string(),
        deleted: z.boolean(),
        item: item.optional(),
      }),
    ),
    next_token: z.string(),
  }),
  pagination: z.object({has_more: z.boolean(), next: z.string().nullable(), limit: z.number()}),
})
const allSchema = z.object({
  data: z.object({episodes: z.array(item), meetups: z.array(item), voices: z.array(item)}),
})

let directory: string
let datasetFile: string
let origin: MainProcess | undefined
let client: CatalogClient
const counts = {requests: 0, upserts: 0, deletions: 0, restarts: 0}

/** fetch, counting requests and holding every page of the feed to the contract, strict: each item exactly as its own endpoint serves it. */
const contractChecked: FetchFunction = async (url, init) => {
  const response = await fetch(url, init)
  counts.requests += 1
  if (response.status === 200) changesEnvelope.parse(await response.clone().json())
  return response
}
const start = async () => {
  origin = await startMainProcess({
    PORT: '0',
    DATASET_FILE: datasetFile,
    SNAPSHOT_DIR: join(directory, 'snapshots'),
    RATE_LIMIT_QUOTA: '0',
    RECONCILE_INTERVAL_SECONDS: '0',
  })
  client = createCatalogClient({baseUrl: `${origin.baseUrl}/api/v1`, fetch: contractChecked})
}

beforeAll(async () => {
  ;({directory, datasetFile} = await copySampleDataset('catalog-change-feed-'))
  await start()
}, 60_000)
afterAll(async () => {
  await origin?.stop()
  await rm(directory, {recursive: true, force: true})
})

/** The client's sync, paged by 7, counting what it did. */
async function sync(mirror?: CatalogMirror): Promise<CatalogMirror> {
  const result = await client.sync(mirror, {limit: 7})
  if (result.restarted) counts.restarts += 1
  for (const change of result.changes) counts[change.deleted ? 'deletions' : 'upserts'] += 1
  return result.mirror
}

/** A mirror's items by `type/slug`, as served() gives all.json's. */
function itemsOf(mirror: CatalogMirror): Map<string, unknown> {
  const items = new Map<string, unknown>()
  for (const [slug, each] of mirror.episodes) items.set(`episode/${slug}`, each)
  for (const [slug, each] of mirror.meetups) items.set(`meetup/${slug}`, each)
  for (const [slug, each] of mirror.voices) items.set(`voice/${slug}`, each)
  return items
}

async function served(): Promise<Map<string, z.infer<typeof item>>> {
  const all = allSchema.parse(await (await fetch(`${origin?.baseUrl ?? ''}/api/v1/all.json`)).json())
  const entries = (['episodes', 'meetups', 'voices'] as const).flatMap((collection) =>
    all.data[collection].map((each) => [`${TYPES[collection]}/${each.slug}`, each] as const),
  )
  return new Map(entries)
}

let main: CatalogMirror | undefined
async function mirrorEqualsCatalog(): Promise<Map<string, unknown>> {
  let items = new Map<string, unknown>()
  await eventually(async () => {
    main = await sync(main)
    items = itemsOf(main)
    expect(items).toEqual(await served())
  }, 20_000)
  // Every token here is one the server keeps: a 410 the client absorbed by starting over would hide a lost history.
  expect(counts.restarts).toBe(0)
  return items
}

/** A small seeded generator (mulberry32): the same operations every run. */
function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

type Document = Record<string, unknown> & {_id: string; _type: string}
const documentSchema = z.looseObject({_id: z.string(), _type: z.string()})

async function editDataset(edit: (documents: Document[]) => Document[]): Promise<void> {
  const lines = (await readFile(datasetFile, 'utf8')).split('\n').filter(Boolean)
  const documents = lines.map((line) => documentSchema.parse(JSON.parse(line)))
  await writeFile(
    `${datasetFile}.new`,
    `${edit(documents)
      .map((each) => JSON.stringify(each))
      .join('\n')}\n`,
  )
  await rename(`${datasetFile}.new`, datasetFile)
}

const OPERATIONS = ['retitle', 'delete', 'rename slug', 'new episode', 'rename voice', 'draft', 'scheduled'] as const

function operate(random: () => number, step: number) {
  const operation = OPERATIONS[Math.floor(random() * OPERATIONS.length)] ?? 'retitle'
  const pick = (documents: Document[], type: string) => {
    const candidates = documents.filter((each) => each._type === type && !each._id.startsWith('drafts.'))
    return candidates[Math.floor(random() * candidates.length)]
  }
  return editDataset((documents) => {
    const episode = pick(documents, 'episode')
    const voice = pick(documents, 'voice')
    switch (operation) {
      case 'retitle':
        return documents.map((each) => (each === episode ? {...each, title: `פרק ערוך ${step}`} : each))
      case 'delete':
        return documents.filter((each) => each !== episode)
      case 'rename slug':
        return documents.map((each) =>
          each === episode ? {...each, slug: {_type: 'slug', current: `renamed-${step}`}} : each,
        )
      case 'new episode':
        return episode
          ? [
              ...documents,
              {...episode, _id: `new-${step}`, slug: {_type: 'slug', current: `new-${step}`}, title: `פרק חדש ${step}`},
            ]
          : documents
      case 'rename voice':
        return documents.map((each) => (each === voice ? {...each, name: `דובר ${step}`} : each))
      case 'draft':
        return episode ? [...documents, {...episode, _id: `drafts.${episode._id}`, title: `טיוטה ${step}`}] : documents
      case 'scheduled':
        return episode
          ? [
              ...documents,
              {
                ...episode,
                _id: `later-${step}`,
                slug: {_type: 'slug', current: `later-${step}`},
                publishedAt: '2099-01-01T00:00:00Z',
              },
            ]
          : documents
    }
  })
}

/**
 * The batch's last write: a meetup titled with the batch number, waited for in all.json, so the
 * comparison runs on a catalog that has read every write of the batch (each replaces the whole file).
 */
async function markBatch(batch: number): Promise<void> {
  const title = `מפגש סימן ${batch}`
  await editDataset((documents) => {
    const marked = documents.find((each) => each._type === 'meetup' && !each._id.startsWith('drafts.'))
    return documents.map((each) => (each === marked ? {...each, title} : each))
  })
  await eventually(async () => expect(JSON.stringify([...(await served()).values()])).toContain(title), 20_000)
}

describe("a mirror kept by the typed client's sync()", () => {
  it('deep-equals all.json after every batch of seeded edits, across a restart', async () => {
    const initial = await mirrorEqualsCatalog()
    expect(counts.upserts).toBe(initial.size)

    const random = seeded(51)
    let older: CatalogMirror | undefined
    for (let batch = 1; batch <= 20; batch++) {
      for (let step = 0; step < 10; step++) await operate(random, batch * 100 + step)
      await markBatch(batch)
      const items = await mirrorEqualsCatalog()
      expect([...items.keys()].some((key) => /\/(later|drafts)/.test(key))).toBe(false)
      if (batch === 8 && main)
        older = {
          episodes: new Map(main.episodes),
          meetups: new Map(main.meetups),
          voices: new Map(main.voices),
          token: main.token,
        }
      if (batch === 10) {
        expect(await origin?.stop()).toBe(0)
        await start()
        // A token from two batches before the restart still answers: the history was saved with the snapshot.
        if (!older) throw new Error('expected the mirror of batch 8')
        expect(itemsOf(await sync(older))).toEqual(await served())
        expect(counts.restarts).toBe(0)
      }
    }
    console.info(`change feed: ${JSON.stringify(counts)}, mirror of ${String(main ? itemsOf(main).size : 0)} items`)
  }, 180_000)

  it('answers a malformed token 400 and an unknown one 410, each saying to start again', async () => {
    for (const [since, status] of [
      ['not-a-token', 400],
      ['AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 410],
    ] as const) {
      const response = await fetch(`${origin?.baseUrl ?? ''}/api/v1/changes.json?since=${since}`)
      expect(response.status).toBe(status)
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(z.object({detail: z.string()}).parse(await response.json()).detail).toMatch(/without `since`/)
    }
  })

  it('answers 410 to a cursor pinned to a version it never served, not a page whose next_token is that version', async () => {
    const forged = Buffer.from(JSON.stringify({p: 'A'.repeat(32), a: 'episodes/a'})).toString('base64url')
    const response = await fetch(`${origin?.baseUrl ?? ''}/api/v1/changes.json?cursor=${forged}`)
    expect(response.status).toBe(410)
    expect(z.object({detail: z.string()}).parse(await response.json()).detail).toMatch(/without `since`/)
  })

  it('answers nothing new for the token of all.json, and revalidates with its ETag', async () => {
    const all = await fetch(`${origin?.baseUrl ?? ''}/api/v1/all.json`)
    await all.arrayBuffer()
    const version = all.headers.get('catalog-version') ?? ''
    const first = await fetch(`${origin?.baseUrl ?? ''}/api/v1/changes.json?since=${version}`)
    expect(changesSchema.parse(await first.json()).data).toEqual({changes: [], next_token: version})
    const again = await fetch(`${origin?.baseUrl ?? ''}/api/v1/changes.json?since=${version}`, {
      headers: {'if-none-match': first.headers.get('etag') ?? ''},
    })
    expect(again.status).toBe(304)
  })
})
