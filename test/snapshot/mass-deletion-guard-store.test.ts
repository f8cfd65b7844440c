// The mass-deletion guard with nothing restored: the store over it builds its first snapshot as
// over the builder itself.
import {describe, expect, it} from 'vitest'
import {guardMassDeletion} from '../../server/snapshot/mass-deletion-guard.ts'
import {buildSnapshot} from '../../server/snapshot/snapshot.ts'
import {createSnapshotStore} from '../../server/snapshot/store.ts'
import {voice} from '../fixtures/documents.ts'
import {catalogOf, snapshotSettings} from '../helpers/snapshot-settings.ts'

describe('a guarded builder without a saved snapshot', () => {
  it('starts its store from its first build', async () => {
    const built = buildSnapshot(await catalogOf([voice('dana')]), snapshotSettings({}), undefined, new Date(0))
    const guard = guardMassDeletion(async () => ({snapshot: built}), {clock: () => new Date(0), confirmAfterMs: 60_000})
    const store = await createSnapshotStore(guard.build)
    expect(store.current()).toBe(built)
    expect(store.status().saved).toBeUndefined()
    store.close()
  })
})
