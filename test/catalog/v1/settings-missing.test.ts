// The podcast settings document gone from the source: deleted or unpublished after a good version
// was served (the last good channel is held, as for invalid settings, and reported as `kept`), or
// never there (no channel, and a problem that says what to publish). No sockets: the catalog mapping.
import {describe, expect, it} from 'vitest'
import {mapCatalog, patchCatalog} from '../../../catalog/v1/catalog.ts'
import type {SanityDocument} from '../../../server/content/ndjson.ts'
import {CATALOG_QUERY, EPISODE_BY_ID_QUERY} from '../../../catalog/queries.ts'
import {episode} from '../../fixtures/documents.ts'
import {fetchFrom, settings, settingsRow} from '../../helpers/catalog-mapping.ts'

const withAudio = (id: string, publishedAt: string) =>
  episode(id, {publishedAt, audioUrl: `https://media.test/${id}.mp3`, audioLength: 1000, audioType: 'audio/mpeg'})
const EPISODES = [withAudio('ep-1', '2025-01-01'), withAudio('ep-2', '2025-02-01')]
const rowsOf = async (documents: SanityDocument[], podcast: unknown) => ({
  ...((await fetchFrom(documents, CATALOG_QUERY)) as object),
  podcast,
})

describe('podcast settings deleted after a good version', () => {
  it('keep the last good channel and report it as kept, naming the deletion and what to do', async () => {
    const previous = mapCatalog(await rowsOf(EPISODES, settingsRow()), settings)
    const deleted = mapCatalog(await rowsOf(EPISODES, null), settings, previous)
    expect(deleted.podcast).toBe(previous.podcast)
    expect(deleted.problems).toEqual([
      {documentId: 'podcastSettings', collection: 'settings', severity: 'kept', messages: [expect.any(String)]},
    ])
    const [message] = deleted.problems[0]?.messages ?? []
    expect(message).toMatch(/deleted or unpublished/)
    expect(message).toMatch(/last good channel/)
    expect(message).toMatch(/publish/)
    expect(message).toMatch(/itunes:block/)
    expect(message).toMatch(/itunes:complete/)
    // A document the query leaves out entirely (a paged read's settings query, an older source) is the same.
    const {podcast: _, ...withoutKey} = await rowsOf(EPISODES, null)
    expect(mapCatalog(withoutKey, settings, previous)).toMatchObject({
      podcast: previous.podcast,
      problems: deleted.problems,
    })
  })

  it('stay held over further full reads and episode edits, the episodes still followed', async () => {
    const previous = mapCatalog(await rowsOf(EPISODES, settingsRow()), settings)
    const deleted = mapCatalog(await rowsOf(EPISODES, null), settings, previous)
    const again = mapCatalog(await rowsOf([...EPISODES, withAudio('ep-3', '2025-03-01')], null), settings, deleted)
    expect(again.podcast).toBe(previous.podcast)
    expect(again.episodes.map((entry) => entry.value.slug)).toEqual(['ep-3', 'ep-2', 'ep-1'])
    expect(again.problems).toEqual(deleted.problems)

    const edited = [withAudio('ep-1', '2025-04-01'), withAudio('ep-2', '2025-02-01')]
    const patched = patchCatalog(
      deleted,
      [{collection: 'episodes', documentId: 'ep-1', row: await fetchFrom(edited, EPISODE_BY_ID_QUERY, {id: 'ep-1'})}],
      settings,
    )
    expect(patched.podcast).toBe(previous.podcast)
    expect(patched.episodes.map((entry) => entry.value.slug)).toEqual(['ep-1', 'ep-2'])
    expect(patched.problems).toEqual(deleted.problems)
  })

  it('are served again, with nothing held back, once settings are published again', async () => {
    const previous = mapCatalog(await rowsOf(EPISODES, settingsRow()), settings)
    const deleted = mapCatalog(await rowsOf(EPISODES, null), settings, previous)
    const restored = mapCatalog(await rowsOf(EPISODES, settingsRow({title: 'Code Talks, again'})), settings, deleted)
    expect(restored.podcast).toMatchObject({ok: true, channel: {title: 'Code Talks, again'}})
    expect(restored.problems).toEqual([])
  })

  it('after refused settings (no good version held) leave no channel, and say that none exists', async () => {
    const refused = mapCatalog(await rowsOf(EPISODES, {_id: 'podcastSettings'}), settings)
    const deleted = mapCatalog(await rowsOf(EPISODES, null), settings, refused)
    expect(deleted.podcast).toBeNull()
    expect(deleted.problems).toMatchObject([{documentId: 'podcastSettings', severity: 'rejected'}])
  })
})

describe('no podcast settings and no channel before', () => {
  it('leave the catalog without a channel, and report the settings as missing with what to publish', async () => {
    const catalog = mapCatalog(await rowsOf(EPISODES, null), settings)
    expect(catalog.podcast).toBeNull()
    expect(catalog.episodes).toHaveLength(2)
    expect(catalog.problems).toEqual([
      {documentId: 'podcastSettings', collection: 'settings', severity: 'rejected', messages: [expect.any(String)]},
    ])
    const [message] = catalog.problems[0]?.messages ?? []
    expect(message).toMatch(/no podcast settings document/)
    expect(message).toContain('podcastSettings')
    for (const field of ['title', 'description', 'author', 'owner', 'artwork', 'categor', 'copyright'])
      expect(message).toContain(field)
  })
})
