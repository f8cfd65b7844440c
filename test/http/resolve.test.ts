import {describe, expect, it} from 'vitest'
import {SLUG_MAX_LENGTH} from '../../catalog/v1/contract.ts'
import {encodeCursor} from '../../server/api/v1/cursor.ts'
import {ITEM_PATH, LIST_PATH, resolveCatalogPath, type Resolution} from '../../server/http/resolve.ts'
import {loadConfig} from '../../server/config.ts'
import {createEmbeddedFileSource} from '../../server/content/embedded-source.ts'
import {catalogSnapshotBuilder} from '../../server/catalog-builder.ts'
import {SAMPLE_DATASET} from '../../support/server.ts'

const BASE = 'http://api.test'
const config = loadConfig({PUBLIC_BASE_URL: BASE})
const snapshot = await catalogSnapshotBuilder({
  source: createEmbeddedFileSource(SAMPLE_DATASET),
  config,
  clock: () => new Date(),
})(undefined, {kind: 'all'})
const [first] = snapshot.catalog.episodes
const slug = first?.value.slug ?? ''
const resolve = (path: string, query = '') => resolveCatalogPath(snapshot, BASE, path, query)
const representationOf = (resolution: Resolution) => (resolution.found ? resolution.representation : undefined)

describe('resolveCatalogPath', () => {
  it('finds lists, items and documents, in the sandbox too, as the snapshot holds them', () => {
    expect(representationOf(resolve('/episodes.json'))).toBe(snapshot.representation('episodes.json'))
    expect(representationOf(resolve(`/episodes/${slug}.json`))).toBe(snapshot.item('episodes', slug))
    expect(representationOf(resolve(`/sandbox/episodes/${slug}.json`))).toBe(snapshot.item('episodes', slug))
    expect(representationOf(resolve('/all.json'))).toBe(snapshot.representation('all.json'))
    expect(representationOf(resolve('/sandbox/index.json'))).toBe(snapshot.representation('index.json'))
  })

  it('ignores the query of items and documents, and reads limit and cursor on lists', () => {
    expect(representationOf(resolve(`/episodes/${slug}.json`, 'utm_source=x'))).toBe(snapshot.item('episodes', slug))
    expect(representationOf(resolve('/index.json', 'a=b'))).toBe(snapshot.representation('index.json'))
    const page = resolve('/episodes.json', 'limit=2&utm_source=x')
    expect(page.found && JSON.parse(page.representation.body.toString('utf8')).pagination).toMatchObject({
      limit: 2,
      count: 2,
      has_more: true,
    })
    const key: [string, string] = ['9999-12-31', '']
    expect(resolve('/episodes.json', `cursor=${encodeCursor(key)}`)).toMatchObject({found: true})
  })

  it('refuses bad list queries with 400 on a path that names a resource, so other methods get 405', () => {
    expect(resolve('/episodes.json', 'limit=0')).toMatchObject({
      found: false,
      names: true,
      status: 400,
      detail: expect.stringMatching(/limit must be/),
    })
    expect(resolve('/episodes.json', 'limit=1&limit=2')).toMatchObject({found: false, names: true, status: 400})
    expect(resolve('/voices.json', 'cursor=not-ours')).toMatchObject({
      found: false,
      names: true,
      status: 400,
      detail: expect.stringMatching(/cursor/),
    })
  })

  it('answers 404 for unknown slugs, non-slugs and unknown paths, saying which', () => {
    expect(resolve('/episodes/no-such-episode.json')).toMatchObject({
      found: false,
      names: false,
      status: 404,
      detail: expect.stringMatching(/No episode has the slug "no-such-episode"/),
    })
    expect(resolve('/voices/NOT_A_SLUG.json')).toMatchObject({
      found: false,
      names: false,
      status: 404,
      detail: expect.stringMatching(/is not a slug/),
    })
    for (const path of [
      '/',
      '/episodes',
      '/episodes/',
      '/podcasts.json',
      '/sandbox/sandbox/index.json',
      '/constructor.json',
      '/__proto__/x.json',
    ]) {
      expect(resolve(path), path).toMatchObject({found: false, names: false, status: 404})
    }
  })

  it('names a list or an item exactly where LIST_PATH and ITEM_PATH match, on paths built from their parts', () => {
    // The resolver splits paths with indexOf; the route labels and the docs use the expressions.
    const parts = ['/', 'episodes', 'voices', '.json', '.', 'json', slug, 'x/', '/a/', '-', '%2F']
    const paths = new Set<string>()
    const extend = (prefix: string, depth: number) => {
      paths.add(prefix)
      if (depth > 0) for (const part of parts) extend(prefix + part, depth - 1)
    }
    extend('', 4)
    for (const path of paths) {
      const resolution = resolve(path)
      const item = ITEM_PATH.exec(path)
      if (LIST_PATH.test(path)) expect(resolution, path).toMatchObject({found: true})
      else if (item)
        expect(resolution.found ? resolution.representation : resolution.detail, path).toEqual(
          item[1] === 'episodes' && item[2] === slug ? snapshot.item('episodes', slug) : expect.stringMatching(/slug/),
        )
      else if (path !== '/index.json' && path !== '/all.json')
        expect(resolution, path).toMatchObject({
          found: false,
          status: 404,
          detail: expect.stringMatching(/No such path/),
        })
    }
  })
})

describe('resolveCatalogPath for chapters', () => {
  const withChapters = snapshot.catalog.episodes.find((entry) => entry.value.chapters)?.value.slug ?? ''
  const without = snapshot.catalog.episodes.find((entry) => !entry.value.chapters)?.value.slug ?? ''
  const unknownPath = `No such path under /api/v1. The service index ${BASE}/api/v1/index.json lists every endpoint.`

  it("finds an episode's chapters document, in the sandbox too", () => {
    expect(withChapters).not.toBe('')
    const chapters = snapshot.chapters(withChapters)
    expect(chapters).toBeDefined()
    expect(representationOf(resolve(`/episodes/${withChapters}/chapters.json`))).toBe(chapters)
    expect(representationOf(resolve(`/sandbox/episodes/${withChapters}/chapters.json`, 'limit=0'))).toBe(chapters)
  })

  it('answers 404 naming the episode served without chapters, an unknown slug or a non-slug', () => {
    expect(without).not.toBe('')
    expect(resolve(`/episodes/${without}/chapters.json`)).toEqual({
      found: false,
      names: false,
      status: 404,
      detail: `The episode "${without}" has no chapters: its chapters_url is null. See ${BASE}/api/v1/episodes/${without}.json.`,
    })
    expect(resolve('/episodes/no-such-episode/chapters.json')).toEqual({
      found: false,
      names: false,
      status: 404,
      detail: `No episode has the slug "no-such-episode". Re-read ${BASE}/api/v1/episodes.json for current slugs; slugs change only when content is renamed.`,
    })
    expect(resolve('/episodes/Not_A_Slug/chapters.json')).toEqual({
      found: false,
      names: false,
      status: 404,
      detail: `"Not_A_Slug" is not a slug: slugs match ^[a-z0-9-]+$ and have at most ${SLUG_MAX_LENGTH} characters. See ${BASE}/api/v1/episodes.json.`,
    })
  })

  it('answers 404 for an unknown path for chapters anywhere but under one episode', () => {
    for (const path of [
      '/chapters.json',
      '/episodes/chapters.json',
      '/voices/x/chapters.json',
      `/episodes/${withChapters}/x/chapters.json`,
    ]) {
      expect(resolve(path), path).toEqual({found: false, names: false, status: 404, detail: unknownPath})
    }
  })
})

describe('what is a slug', () => {
  it('is one of at most SLUG_MAX_LENGTH characters: a longer one is not a slug', () => {
    const longest = 'a'.repeat(SLUG_MAX_LENGTH)
    expect(resolve(`/voices/${longest}.json`)).toMatchObject({
      detail: expect.stringMatching(/^No speaker has the slug/),
    })
    expect(resolve(`/voices/${longest}a.json`)).toMatchObject({detail: expect.stringMatching(/is not a slug/)})
    expect(resolve(`/episodes/${longest}/chapters.json`)).toMatchObject({
      detail: expect.stringMatching(/^No episode has the slug/),
    })
  })
})
