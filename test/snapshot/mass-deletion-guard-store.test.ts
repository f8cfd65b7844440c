// The mass-deletion guard over a builder that restores nothing: the store over it builds its first
// snapshot as over the builder itself.
import {describe, expect, it} from 'vitest'
import {guardMassDeletion} from '../../server/snapshot/mass-deletion-guard.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {createSnapshotStore} from '../../server/snapshot/store.ts'
import {voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

describe('a guarded builder without a saved snapshot', () => {
  it('restores nothing, and its store starts from its first build', async () => {
    const built = buildSnapshot(await catalogOf([voice('dana')]), snapshotSettings({}), undefined, new Date(0))
    const guard = guardMassDeletion(async () => built, {clock: () => new Date(0), confirmAfterMs: 60_000})
    expect(guard.build.restore).toBeUndefined()
    const store = await createSnapshotStore(guard.build)
    expect(store.current()).toBe(built)
    expect(store.status().saved).toBeUndefined()
    store.close()
  })
})
