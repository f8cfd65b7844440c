// The search answers' surrogate key: every publish that changes what is served purges it, since
// any answer may rank any item; a rebuild that serves the same content does not.
import {beforeAll, describe, expect, it} from 'vitest'
import type {Catalog} from '../../catalog/v1/catalog.ts'
import {planPurge} from '../../server/edge/purge-plan.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {createSurrogateKeying, SEARCH_KEY} from '../../server/snapshot/surrogate-keys.ts'
import {episode, voice} from '../fixtures/documents.ts'
import {settingsDocument} from '../helpers/catalog-mapping.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

const NOW = new Date('2026-06-01T00:00:00Z')
const keying = createSurrogateKeying('varnish')
const settings = snapshotSettings({keying})
const documents = [voice('dana'), episode('ep-1', {publishedAt: '2025-01-01'})]

let before: Catalog
let retitled: Catalog
let withSettings: Catalog
beforeAll(async () => {
  before = await catalogOf(documents)
  retitled = await catalogOf(
    documents.map((document) => (document._id === 'ep-1' ? {...document, title: 'קוברנטיס'} : document)),
  )
  withSettings = await catalogOf([settingsDocument, ...documents])
})

describe('the search key in a purge plan', () => {
  it('is purged by an edit of any item', () => {
    const previous = buildSnapshot(before, settings, undefined, NOW)
    expect(planPurge(previous, buildSnapshot(retitled, settings, previous, NOW), keying)).toContain(SEARCH_KEY)
  })

  it('is not purged when the items are served as they were', () => {
    const previous = buildSnapshot(before, settings, undefined, NOW)
    expect(planPurge(previous, buildSnapshot(before, settings, previous, NOW), keying)).not.toContain(SEARCH_KEY)
    // The podcast settings change the feed, not what search ranks.
    expect(planPurge(previous, buildSnapshot(withSettings, settings, previous, NOW), keying)).not.toContain(SEARCH_KEY)
  })
})
