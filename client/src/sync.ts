import type {Http} from './http.ts'
import {nextPage} from './pages.ts'
import {CatalogProblem} from './problem.ts'
import type {Change, Changes, Episode, Meetup, Voice} from './types.ts'

/** A local copy of the catalog: every served item by slug, and the token it is current at. */
export interface CatalogMirror {
  episodes: Map<string, Episode>
  meetups: Map<string, Meetup>
  voices: Map<string, Voice>
  /** The `next_token` of the last sync, to continue from; null before the first. */
  token: string | null
}

export interface SyncResult {
  /** The mirror passed in, now current (or a new one). */
  mirror: CatalogMirror
  /** Each item that changed, once, in its state now (or `deleted`), ordered by type and slug. */
  changes: Change[]
  /** True when the server no longer knew the mirror's token (410), so the mirror was read anew. */
  restarted: boolean
}

const COLLECTION = {episode: 'episodes', meetup: 'meetups', voice: 'voices'} as const

/**
 * Brings `mirror` up to date from the change feed (`changes.json` at `endpoint`): the changes since
 * its token, every page of them, or, without a token, an initial sync. A token the server answers
 * 410 for starts over without it, and what changed is then what differs from the mirror held.
 * The mirror is changed only once every page has been read, so a failure leaves it as it was.
 */
export async function sync(
  http: Http,
  endpoint: string,
  mirror: CatalogMirror = emptyMirror(),
  limit?: number,
): Promise<SyncResult> {
  if (mirror.token !== null) {
    const delta = await readChanges(http, endpoint, mirror.token, limit).catch((error: unknown) => {
      if (error instanceof CatalogProblem && error.status === 410) return undefined
      throw error
    })
    if (delta) {
      for (const change of delta.changes) apply(mirror, change)
      mirror.token = delta.token
      return {mirror, changes: delta.changes, restarted: false}
    }
  }
  const whole = await readChanges(http, endpoint, null, limit)
  const fresh = emptyMirror()
  for (const change of whole.changes) apply(fresh, change)
  const changes = difference(mirror, fresh)
  replace(mirror.episodes, fresh.episodes)
  replace(mirror.meetups, fresh.meetups)
  replace(mirror.voices, fresh.voices)
  const restarted = mirror.token !== null
  mirror.token = whole.token
  return {mirror, changes, restarted}
}

const emptyMirror = (): CatalogMirror => ({episodes: new Map(), meetups: new Map(), voices: new Map(), token: null})

/** Every page of one answer of the feed; each page carries the same `next_token`. */
async function readChanges(
  http: Http,
  endpoint: string,
  since: string | null,
  limit: number | undefined,
): Promise<{changes: Change[]; token: string}> {
  const first = new URL(endpoint)
  if (since !== null) first.searchParams.set('since', since)
  if (limit !== undefined) first.searchParams.set('limit', String(limit))
  const changes: Change[] = []
  let token = since ?? ''
  // Not revalidated: each answer is read once, and an initial sync's pages would push out what is worth keeping.
  for (let url: string | null = first.toString(); url !== null;) {
    const page: Changes = await http.get(url, {revalidate: false})
    changes.push(...page.data.changes)
    token = page.data.next_token
    url = nextPage(url, page.pagination.next)
  }
  return {changes, token}
}

function apply(mirror: CatalogMirror, change: Change): void {
  if (change.deleted) {
    mirror[COLLECTION[change.type]].delete(change.slug)
    return
  }
  switch (change.type) {
    case 'episode':
      mirror.episodes.set(change.slug, change.item)
      break
    case 'meetup':
      mirror.meetups.set(change.slug, change.item)
      break
    case 'voice':
      mirror.voices.set(change.slug, change.item)
      break
  }
}

/** What turns `before` into `after`, as the feed would have sent it: upserts and deletions by type and slug. */
function difference(before: CatalogMirror, after: CatalogMirror): Change[] {
  return [
    ...differenceIn('episode', before.episodes, after.episodes, (slug, item) => ({
      type: 'episode',
      slug,
      deleted: false,
      item,
    })),
    ...differenceIn('meetup', before.meetups, after.meetups, (slug, item) => ({
      type: 'meetup',
      slug,
      deleted: false,
      item,
    })),
    ...differenceIn('voice', before.voices, after.voices, (slug, item) => ({
      type: 'voice',
      slug,
      deleted: false,
      item,
    })),
  ]
}

function differenceIn<Item>(
  type: Change['type'],
  before: ReadonlyMap<string, Item>,
  after: ReadonlyMap<string, Item>,
  upsert: (slug: string, item: Item) => Change,
): Change[] {
  const changes: {slug: string; change: Change}[] = []
  for (const [slug, item] of after) {
    const held = before.get(slug)
    // The server writes an item's fields in one order, so an unchanged item has the same text.
    if (held === undefined || JSON.stringify(held) !== JSON.stringify(item))
      changes.push({slug, change: upsert(slug, item)})
  }
  for (const slug of before.keys()) if (!after.has(slug)) changes.push({slug, change: {type, slug, deleted: true}})
  // The feed's order within a type: slugs by code unit.
  return changes.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0)).map(({change}) => change)
}

function replace<Item>(target: Map<string, Item>, source: ReadonlyMap<string, Item>): void {
  target.clear()
  for (const [slug, item] of source) target.set(slug, item)
}
