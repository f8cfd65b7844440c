import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it, vi} from 'vitest'
import {catalogSnapshotBuilder, createCatalogBuilder} from '../../server/catalog-builder.ts'
import type {Clock} from '../../server/clock.ts'
import {loadConfig} from '../../server/config.ts'
import {createReleaseTimer} from '../../server/release-timer.ts'
import {createEmbeddedSource} from '../../server/content/embedded-source.ts'
import type {SanityDocument} from '../../server/content/ndjson.ts'
import {FEED_PATH} from '../../server/feed/rss-feed.ts'
import {openSnapshotFile} from '../../server/snapshot/saved-snapshot.ts'
import type {Snapshot} from '../../server/snapshot/snapshot.ts'
import {episode, voice} from '../fixtures/documents.ts'

// Scheduled releases through the real builder (embedded source, GROQ, mapping, snapshot), with an
// injected clock: held before the release time, served from it on, and the same bytes whoever builds.

const ALL = {kind: 'all'} as const
const config = loadConfig({PUBLIC_BASE_URL: 'http://api.test'})
const RELEASE = '2027-06-01T06:00:00.000Z' // 09:00 in Israel (summer time)
const BEFORE = new Date('2027-06-01T05:59:59.999Z')

const settings = {
  _id: 'podcastSettings',
  _type: 'podcastSettings',
  _updatedAt: '2025-01-01T00:00:00Z',
  title: 'קוד ושיחות',
  description: 'פודקאסט על תוכנה.',
  author: 'הצוות',
  owner: {name: 'הצוות', email: 'team@example.com'},
  categories: ['Technology'],
  explicit: false,
  showType: 'episodic',
  language: 'he',
  guid: 'ead4c236-bf58-58c6-a2c6-a6b28d128cb6',
  copyright: '© 2026',
  artwork: {
    _type: 'image',
    asset: {_type: 'reference', _ref: 'image-5c0d3a1e9f7b2c4d6e8f0a1b3c5d7e9f1a2b3c4d-3000x3000-jpg'},
  },
}
const audio = (slug: string) => ({
  audioUrl: `https://media.example.com/${slug}.mp3`,
  audioLength: 1000,
  audioType: 'audio/mpeg',
})

function documents(): SanityDocument[] {
  return [
    settings,
    voice('dana'),
    episode('ep-1-old', {publishedAt: '2025-02-01', ...audio('ep-1-old')}),
    episode('ep-2-future', {_id: 'future', publishedAt: RELEASE, ...audio('ep-2-future')}),
    // Same release time: the slug orders them, in the API lists and in the feed alike.
    episode('ep-3-tied-b', {publishedAt: '2026-01-05T07:00:00Z', ...audio('ep-3-tied-b')}),
    episode('ep-3-tied-a', {publishedAt: '2026-01-05T09:00:00+02:00', ...audio('ep-3-tied-a')}),
    // Earlier the same day: after both, though its slug sorts first.
    episode('bonus-same-day', {publishedAt: '2026-01-05T05:00:00Z', ...audio('bonus-same-day')}),
  ]
}

function builderAt(clock: Clock, over: () => SanityDocument[] = documents) {
  return catalogSnapshotBuilder({source: createEmbeddedSource('inline', async () => over()), config, clock})
}

const slugsOf = (snapshot: Snapshot) => snapshot.catalog.episodes.map((entry) => entry.value.slug)
const text = (snapshot: Snapshot, path: string) => {
  const body = snapshot.representation(path)?.body
  return body === undefined ? undefined : Buffer.isBuffer(body) ? body.toString('utf8') : String(body)
}
const feedText = (snapshot: Snapshot) => snapshot.site(FEED_PATH)?.body.toString('utf8') ?? ''

describe('scheduled releases', () => {
  it('holds an episode back everywhere until its release time, and says when that is', async () => {
    const held = await builderAt(() => BEFORE)(undefined, ALL)
    expect(slugsOf(held)).not.toContain('ep-2-future')
    expect(held.item('episodes', 'ep-2-future')).toBeUndefined()
    expect(held.counts.episodes).toBe(4)
    expect(text(held, 'all.json')).not.toContain('ep-2-future')
    expect(text(held, 'episodes.json')).not.toContain('ep-2-future')
    expect(feedText(held)).not.toContain('ep-2-future')
    expect(held.nextRelease).toEqual({at: new Date(RELEASE), documentIds: ['future']})

    const released = await builderAt(() => new Date(RELEASE))(undefined, ALL)
    expect(slugsOf(released)[0]).toBe('ep-2-future')
    expect(released.nextRelease).toBeUndefined()
    const item = JSON.parse(text(released, 'episodes/ep-2-future.json') ?? '{}') as {data: Record<string, unknown>}
    expect(item.data).toMatchObject({published_at: RELEASE, published_date: '2027-06-01'})
    expect(feedText(released)).toContain('<pubDate>Tue, 01 Jun 2027 06:00:00 GMT</pubDate>')
    // The feed changed at the release, though no document did: readers of lastBuildDate see it.
    expect(feedText(held)).not.toContain('<lastBuildDate>Tue, 01 Jun 2027')
    expect(feedText(released)).toContain('<lastBuildDate>Tue, 01 Jun 2027 06:00:00 GMT</lastBuildDate>')
  })

  it('reads a date-only release as 00:00 Israel time that day, with published_date unchanged', async () => {
    const snapshot = await builderAt(() => BEFORE)(undefined, ALL)
    const old = JSON.parse(text(snapshot, 'episodes/ep-1-old.json') ?? '{}') as {data: Record<string, unknown>}
    expect(old.data).toMatchObject({published_date: '2025-02-01', published_at: '2025-01-31T22:00:00.000Z'})
    expect(feedText(snapshot)).toContain('<pubDate>Fri, 31 Jan 2025 22:00:00 GMT</pubDate>')
  })

  it('orders episodes by release instant, then by slug, in the API list and in the feed alike', async () => {
    const snapshot = await builderAt(() => BEFORE)(undefined, ALL)
    const order = ['ep-3-tied-a', 'ep-3-tied-b', 'bonus-same-day', 'ep-1-old']
    expect(slugsOf(snapshot)).toEqual(order)
    const feed = feedText(snapshot)
    const positions = order.map((slug) => feed.indexOf(`/episodes/${slug}<`))
    expect(positions.every((position) => position > 0)).toBe(true)
    expect(positions).toEqual(positions.toSorted((a, b) => a - b))
  })

  it('gives the same bytes and ETags from two builders at the same content and release state, whatever their clocks', async () => {
    const one = await builderAt(() => new Date('2027-01-01T00:00:00Z'))(undefined, ALL)
    const other = await builderAt(() => BEFORE)(undefined, ALL)
    expect(other.version).toBe(one.version)
    for (const path of one.paths) expect(other.representation(path)?.etag, path).toBe(one.representation(path)?.etag)
    expect(other.site(FEED_PATH)?.etag).toBe(one.site(FEED_PATH)?.etag)
  })

  it('serves the same after a per-document build at the release time as after a full read', async () => {
    let now = BEFORE
    const build = builderAt(() => now)
    const held = await build(undefined, ALL)
    now = new Date(RELEASE)
    const patched = await build(held, {kind: 'documents', documents: new Map([['future', 'episodes']])})
    const full = await builderAt(() => now)(undefined, ALL)
    expect(slugsOf(patched)).toEqual(slugsOf(full))
    expect(patched.version).toBe(full.version)
    expect(patched.site(FEED_PATH)?.etag).toBe(full.site(FEED_PATH)?.etag)
  })

  it('keeps a held-back episode through edits of other documents, and releases it on any later build', async () => {
    let now = BEFORE
    let current = documents()
    const build = builderAt(
      () => now,
      () => current,
    )
    const held = await build(undefined, ALL)
    current = current.map((document) =>
      document._id === 'ep-1-old' ? {...document, title: 'פרק ישן, ערוך'} : document,
    )
    const edited = await build(held, {kind: 'documents', documents: new Map([['ep-1-old', 'episodes']])})
    expect(slugsOf(edited)).not.toContain('ep-2-future')
    expect(edited.nextRelease?.documentIds).toEqual(['future'])
    now = new Date(RELEASE)
    const later = await build(edited, {kind: 'documents', documents: new Map([['ep-1-old', 'episodes']])})
    expect(slugsOf(later)[0]).toBe('ep-2-future')
  })
})

// An edit meant to postpone a release that the server refuses (a month 13) must not let the last
// valid version go live at the old time: the release is held until a valid version arrives.
const FUTURE_ONLY = new Map([['future', 'episodes' as const]])
const withFuture = (fields: Record<string, unknown>) =>
  documents().map((document) => (document._id === 'future' ? {...document, ...fields} : document))
const problemOf = (snapshot: Snapshot | undefined, documentId: string) =>
  snapshot?.catalog.problems.find((problem) => problem.documentId === documentId)
const HELD = /release held/

describe('a refused edit to an episode not yet released', () => {
  afterEach(() => vi.useRealTimers())

  it('holds its release past the old time, through per-document builds and full reads, and says why', async () => {
    let now = BEFORE
    let current = documents()
    const build = builderAt(
      () => now,
      () => current,
    )
    const pending = await build(undefined, ALL)
    current = withFuture({publishedAt: '2026-13-01T00:00:00Z', _updatedAt: '2027-05-01T00:00:00Z'})
    const refused = await build(pending, {kind: 'documents', documents: FUTURE_ONLY})
    expect(slugsOf(refused)).not.toContain('ep-2-future')
    expect(refused.nextRelease, 'no release is armed for it').toBeUndefined()
    expect(problemOf(refused, 'future')).toMatchObject({
      severity: 'rejected',
      messages: expect.arrayContaining([expect.stringMatching(HELD)]),
    })
    expect(problemOf(refused, 'future')?.messages[0]).toMatch(/^published_at: /)

    // The old release time passes: a build of another document, one of this one and a full read all hold it.
    now = new Date(RELEASE)
    const other = await build(refused, {kind: 'documents', documents: new Map([['ep-1-old', 'episodes']])})
    const again = await build(other, {kind: 'documents', documents: FUTURE_ONLY})
    const full = await build(again, ALL)
    for (const snapshot of [other, again, full]) {
      expect(slugsOf(snapshot)).not.toContain('ep-2-future')
      expect(snapshot.item('episodes', 'ep-2-future')).toBeUndefined()
      expect(feedText(snapshot)).not.toContain('ep-2-future')
      expect(snapshot.nextRelease).toBeUndefined()
      expect(problemOf(snapshot, 'future')).toMatchObject({
        severity: 'rejected',
        messages: expect.arrayContaining([expect.stringMatching(HELD)]),
      })
    }

    // A valid version, typed without seconds: released at its own time, not before.
    const LATER = '2027-07-01T06:00:00.000Z'
    current = withFuture({publishedAt: '2027-07-01T09:00+03:00', _updatedAt: '2027-06-02T00:00:00Z'})
    const fixed = await build(full, {kind: 'documents', documents: FUTURE_ONLY})
    expect(slugsOf(fixed)).not.toContain('ep-2-future')
    expect(problemOf(fixed, 'future')).toBeUndefined()
    expect(fixed.nextRelease).toEqual({at: new Date(LATER), documentIds: ['future']})
    now = new Date(LATER)
    const released = await build(fixed, {kind: 'documents', documents: FUTURE_ONLY})
    expect(slugsOf(released)[0]).toBe('ep-2-future')
    const item = JSON.parse(text(released, 'episodes/ep-2-future.json') ?? '{}') as {data: Record<string, unknown>}
    expect(item.data).toMatchObject({published_at: LATER, published_date: '2027-07-01'})
  })

  it('holds it when the refused edit is first seen by a full read, and the release timer is armed for nothing', async () => {
    let current = documents()
    const build = builderAt(
      () => BEFORE,
      () => current,
    )
    const pending = await build(undefined, ALL)
    current = withFuture({title: ''})
    const refused = await build(pending, ALL)
    expect(slugsOf(refused)).not.toContain('ep-2-future')
    expect(problemOf(refused, 'future')?.messages).toEqual([
      expect.stringMatching(/^title: /),
      expect.stringMatching(HELD),
    ])

    vi.useFakeTimers({now: BEFORE})
    const released: (readonly string[])[] = []
    const timer = createReleaseTimer(
      () => new Date(),
      (ids) => released.push(ids),
    )
    timer.arm(pending)
    timer.arm(refused)
    vi.advanceTimersByTime(Date.parse(RELEASE) - BEFORE.getTime() + 60_000)
    expect(released, 'nothing fires at the old release time').toEqual([])
    timer.close()
  })

  it('leaves an episode already released served at its last valid version (kept), as before', async () => {
    let current = documents()
    const build = builderAt(
      () => BEFORE,
      () => current,
    )
    const served = await build(undefined, ALL)
    current = current.map((document) =>
      document._id === 'ep-1-old' ? {...document, publishedAt: '2026-13-01T00:00:00Z'} : document,
    )
    const refused = await build(served, {kind: 'documents', documents: new Map([['ep-1-old', 'episodes']])})
    expect(slugsOf(refused)).toContain('ep-1-old')
    expect(problemOf(refused, 'ep-1-old')).toMatchObject({severity: 'kept'})
    expect(problemOf(refused, 'ep-1-old')?.messages.join('\n')).not.toMatch(HELD)
    expect(refused.nextRelease?.documentIds).toEqual(['future'])
  })

  it('stays held after a restart past the old time from a snapshot saved while held, and after its first read', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'scheduled-held-'))
    try {
      const file = openSnapshotFile(directory, {test: true})
      const broken = () => withFuture({publishedAt: '2026-13-01T00:00:00Z'})
      const build = builderAt(() => BEFORE)
      const pending = await build(undefined, ALL)
      const refused = await builderAt(() => BEFORE, broken)(pending, {kind: 'documents', documents: FUTURE_ONLY})
      await file.save(refused, 'fingerprint')
      const restarted = createCatalogBuilder({
        source: createEmbeddedSource('inline', async () => broken()),
        config,
        clock: () => new Date(RELEASE),
        saved: {file, directory},
      })
      const built = (await restarted.restore()).snapshot?.built
      const restored = built?.snapshot
      expect(restored && slugsOf(restored)).not.toContain('ep-2-future')
      expect(restored?.nextRelease).toBeUndefined()
      expect(problemOf(restored, 'future')?.messages).toContainEqual(expect.stringMatching(HELD))
      const read = built && (await restarted.build(built, ALL)).snapshot
      expect(read, 'the source was read, its fingerprint being another').not.toBe(restored)
      expect(read && slugsOf(read)).not.toContain('ep-2-future')
      expect(problemOf(read, 'future')).toMatchObject({
        severity: 'rejected',
        messages: expect.arrayContaining([expect.stringMatching(HELD)]),
      })
    } finally {
      await rm(directory, {recursive: true, force: true})
    }
  })
})

describe('a saved snapshot with a scheduled episode', () => {
  it('keeps the episode held back on disk, and a start after its release time serves it at once', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'scheduled-'))
    try {
      const file = openSnapshotFile(directory, {test: true})
      const held = await builderAt(() => BEFORE)(undefined, ALL)
      await file.save(held, 'fingerprint')
      const restart = (at: Date) =>
        createCatalogBuilder({
          source: createEmbeddedSource('inline', async () => documents()),
          config,
          clock: () => at,
          saved: {file, directory},
        }).restore()
      const early = (await restart(BEFORE)).snapshot?.built.snapshot
      expect(early && slugsOf(early)).not.toContain('ep-2-future')
      expect(early?.nextRelease?.documentIds).toEqual(['future'])
      const late = (await restart(new Date(RELEASE))).snapshot?.built.snapshot
      expect(late && slugsOf(late)[0]).toBe('ep-2-future')
      const full = await builderAt(() => new Date(RELEASE))(undefined, ALL)
      expect(late?.version).toBe(full.version)
    } finally {
      await rm(directory, {recursive: true, force: true})
    }
  })
})
